package load

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// checkInstallDir reports, as an error at the file, every hand-written non-test .go file in
// the group's install directory: apigen owns that directory (it writes the install package
// there, whose zz_generated.install.go declares Install, NewAPIGroupInfo and the resources'
// strategies), so such a file fails only later, at compile time, with "Install redeclared"
// or a package clash. Tests (*_test.go) beside the generated files are the user's and fine.
func (b *builder) checkInstallDir(g *model.Group) {
	entries, err := os.ReadDir(g.InstallDir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		b.errorf(b.pos(model.Position{File: g.InstallDir}), "cannot read the install directory of group %s: %v", g.Name, err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || filepath.Ext(name) != ".go" || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated.") {
			continue
		}
		rel := func(dir string) string { return b.pos(model.Position{File: dir}).File }
		b.errorf(b.pos(model.Position{File: filepath.Join(g.InstallDir, name), Line: 1}),
			"apigen owns %s: it generates group %s's install package there (zz_generated.install.go declares Install and NewAPIGroupInfo); "+
				"move this hand-written file out of it (into the group's package %s, say) or delete it", rel(g.InstallDir), g.Name, rel(g.Hub.Dir))
	}
}

package load

import (
	"go/ast"

	"github.com/apigen-dev/apigen/generators/model"
)

// registryPath is the runtime package whose UserStorageConfig a kind's own storage
// constructor takes.
const registryPath = "github.com/apigen-dev/apigen/runtime/registry"

// checkUserStorage checks the kinds of g marked +apigen:storage=interface: every version
// declaring the kind marks it alike, and the hand-written install files declare its
// constructor, func new<Kind>Storage(config registry.UserStorageConfig) (storage.Interface,
// error), taking a registry.UserStorageConfig. Errors are at the kind's type, saying what to
// write and where.
func (b *builder) checkUserStorage(g *model.Group) {
	first := map[string]*model.Kind{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			prev, seen := first[k.Name]
			if !seen {
				first[k.Name] = k
				continue
			}
			if (prev.UserStorage == "interface") != (k.UserStorage == "interface") {
				b.errorf(k.Pos, "+apigen:storage on %s: version %s says %q, an earlier version %q; one resource has one storage: "+
					"mark every version's %s alike", k.Name, v.Name, k.UserStorage, prev.UserStorage, k.Name)
			}
		}
	}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.UserStorage != "interface" || first[k.Name] != k {
				continue
			}
			if k.CreateOnly {
				b.errorf(k.Pos, "+apigen:storage=interface on %s: a create-only kind (+genclient:onlyVerbs=create) is never stored; remove the marker", k.Name)
				continue
			}
			name := k.UserStorageFunc()
			if g.HandInstall == nil || !g.HandInstall.HasFunc(name) {
				b.errorf(k.Pos, "+apigen:storage=interface on %s: the install package (%s) declares no %s: write, in a "+
					"hand-written file there, %s returning the storage %s objects are kept in (registry and storage are "+
					"github.com/apigen-dev/apigen/runtime/registry and .../runtime/storage)",
					k.Name, g.InstallDir, name, k.UserStorageSignature(), k.Name)
				continue
			}
			b.checkUserStorageSignature(g, k)
		}
	}
}

// checkUserStorageSignature reports a new<Kind>Storage whose parameters are not one
// registry.UserStorageConfig, at the function.
func (b *builder) checkUserStorageSignature(g *model.Group, k *model.Kind) {
	files, err := b.handFiles(g.InstallDir)
	if err != nil {
		return // handInstall reported it
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != k.UserStorageFunc() {
				continue
			}
			params := flatParams(fd.Type.Params)
			if fd.Type.TypeParams == nil && len(params) == 1 && isQualified(params[0], importNames(f), registryPath, "UserStorageConfig") &&
				fd.Type.Results != nil && len(flatParams(fd.Type.Results)) == 2 {
				continue
			}
			b.errorf(b.position(fd.Name.Pos()), "%s: the generated store of %s calls %s: write that signature",
				signature(b, fd), k.Name, k.UserStorageSignature())
		}
	}
}

package load

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/apigen-dev/apigen/generators/model"
)

// controllerRuntimeModule is controller-runtime's module, which kubebuilder projects' API
// packages import (pkg/scheme in groupversion_info.go, pkg/conversion in *_conversion.go);
// controllerRuntimeVersion is the version apigen's own go.mod requires, the one built against
// the Kubernetes libraries apigen's runtime uses.
const (
	controllerRuntimeModule  = "sigs.k8s.io/controller-runtime"
	controllerRuntimeVersion = "v0.25.2"
)

// moduleErrors returns, for every import of a root package that the module cannot provide
// (no module go.mod requires provides it, or go.sum lacks its module's entry), one diagnostic
// at the import naming the command to run, where the go command reports it on the imported
// package and type checking then fails without saying why (controller-runtime's
// conversion.Hub unresolved, a spoke's ConvertTo and ConvertFrom would not be recognised).
func moduleErrors(pkgs []*packages.Package, rel func(model.Position) model.Position) model.Diagnostics {
	var diags model.Diagnostics
	seen := map[string]bool{}
	for _, pkg := range pkgs {
		for path, imp := range pkg.Imports {
			for _, e := range imp.Errors {
				msg, ok := moduleErrorMessage(path, e.Msg)
				if !ok || seen[e.Pos+msg] {
					continue
				}
				seen[e.Pos+msg] = true
				pos := parsePos(e.Pos)
				if pos.File == "" {
					pos.File = pkg.PkgPath
				}
				diags = append(diags, model.Diagnostic{Pos: rel(pos), Message: msg})
			}
		}
	}
	return diags
}

// moduleErrorMessage rewrites the go command's error about imported package path that no
// required module provides, or whose go.sum entry is missing, as one line naming the command
// to run: for controller-runtime missing from go.mod, `go get
// sigs.k8s.io/controller-runtime@<the version apigen requires>`; otherwise the go command's own
// suggestion (for a missing go.sum entry, `go get` of the importing package, which keeps the
// version go.mod requires). ok is false for other errors.
func moduleErrorMessage(path, msg string) (string, bool) {
	var what string
	missing := false
	switch {
	case strings.Contains(msg, "no required module provides package"), strings.Contains(msg, "cannot find module providing package"):
		what = fmt.Sprintf("package %s is imported, but no module this module's go.mod requires provides it", path)
		missing = true
	case strings.Contains(msg, "missing go.sum entry"):
		what = fmt.Sprintf("package %s is imported, but go.sum has no entry for the module providing it", path)
	default:
		return "", false
	}
	run := ""
	if _, suggestion, ok := strings.Cut(msg, "\n\t"); ok {
		run = strings.TrimSpace(suggestion)
	}
	if missing && (path == controllerRuntimeModule || strings.HasPrefix(path, controllerRuntimeModule+"/")) {
		run = "go get " + controllerRuntimeModule + "@" + controllerRuntimeVersion
	}
	if run == "" {
		return what + "; add its module with go get, then run apigen generate again", true
	}
	return fmt.Sprintf("%s; run `%s`, then apigen generate again", what, run), true
}

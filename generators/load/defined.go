package load

import (
	"go/ast"
	"go/types"
	"strconv"

	"github.com/apigen-dev/apigen/generators/model"
)

// definedFrom returns the named type that the declaration td of obj names as its type
// (`type GRPCHeaderName HeaderName`, `type Gateway v1.Gateway`), or nil when the declared
// type is a type literal, a predeclared type, an alias or cannot be resolved. go/types keeps
// only the underlying type of a defined type, so the name is read from the declaration's
// syntax: an identifier of obj's package, or a selector whose package is one of the
// declaring file's imports.
func (b *builder) definedFrom(obj *types.TypeName, td *typeDecl) *model.Type {
	if td == nil || obj.Pkg() == nil || obj.IsAlias() || td.spec.TypeParams != nil {
		return nil
	}
	var target types.Object
	switch e := td.spec.Type.(type) {
	case *ast.Ident:
		target = obj.Pkg().Scope().Lookup(e.Name)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil
		}
		if pkg := importedAs(obj.Pkg(), td.file.imports, x.Name); pkg != nil {
			target = pkg.Scope().Lookup(e.Sel.Name)
		}
	}
	tn, ok := target.(*types.TypeName)
	if !ok || tn.IsAlias() || tn == obj {
		return nil
	}
	if _, ok := tn.Type().(*types.Named); !ok {
		return nil
	}
	return b.named(tn)
}

// importedAs returns the package that the file whose imports are specs refers to as name,
// found among the imports of pkg, or nil.
func importedAs(pkg *types.Package, specs []*ast.ImportSpec, name string) *types.Package {
	for _, s := range specs {
		path, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			continue
		}
		for _, imp := range pkg.Imports() {
			if imp.Path() != path {
				continue
			}
			local := imp.Name()
			if s.Name != nil {
				local = s.Name.Name
			}
			if local == name {
				return imp
			}
		}
	}
	return nil
}

package load

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/apigen-dev/apigen/generators/model"
)

// schemeBuilderType is the type a hand-written SchemeBuilder is, or embeds.
const schemeBuilderType = "k8s.io/apimachinery/pkg/runtime.SchemeBuilder"

// vars returns every package-level variable and constant declared in the non-generated
// files, with its position.
func (b *builder) vars(files []*ast.File) map[string]model.Position {
	return b.genDeclNames(files, func(tok token.Token) bool { return tok == token.VAR || tok == token.CONST })
}

// typeNames returns every type declared in the non-generated files (aliases included), with
// its position.
func (b *builder) typeNames(files []*ast.File) map[string]model.Position {
	return b.genDeclNames(files, func(tok token.Token) bool { return tok == token.TYPE })
}

// genDeclNames returns the names the top-level declarations of the non-generated files whose
// token is chosen by want declare, with their positions.
func (b *builder) genDeclNames(files []*ast.File, want func(token.Token) bool) map[string]model.Position {
	out := map[string]model.Position{}
	for _, f := range files {
		if ast.IsGenerated(f) {
			continue
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || !want(gd.Tok) {
				continue
			}
			for _, s := range gd.Specs {
				var names []*ast.Ident
				switch s := s.(type) {
				case *ast.ValueSpec:
					names = s.Names
				case *ast.TypeSpec:
					names = []*ast.Ident{s.Name}
				}
				for _, n := range names {
					if n.Name != "_" {
						out[n.Name] = b.position(n.Pos())
					}
				}
			}
		}
	}
	return out
}

// schemeBuilderField returns the name of the runtime.SchemeBuilder field embedded in the
// type of pkg's SchemeBuilder variable (through one pointer), or "" when SchemeBuilder is a
// runtime.SchemeBuilder itself, embeds none, or is not declared.
func schemeBuilderField(pkg *types.Package) string {
	v, ok := pkg.Scope().Lookup("SchemeBuilder").(*types.Var)
	if !ok {
		return ""
	}
	t := v.Type()
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if isSchemeBuilder(t) {
		return ""
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() && isSchemeBuilder(f.Type()) {
			return f.Name()
		}
	}
	return ""
}

// isSchemeBuilder reports whether t is apimachinery's runtime.SchemeBuilder.
func isSchemeBuilder(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == schemeBuilderType
}

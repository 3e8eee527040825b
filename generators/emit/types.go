package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// Qual renders a named type as a qualified identifier; jennifer imports its package under the
// name NewFile fixed for it.
func Qual(t *model.Type) *jen.Statement { return jen.Qual(t.Name.Package, t.Name.Name) }

// TypeRef renders a type reference as a Go type expression ("*[]metav1.Condition",
// "map[string]string", "[4]int32"); interface types render as interface{}.
func TypeRef(r *model.TypeRef) jen.Code {
	switch r.Kind {
	case model.Basic:
		return jen.Id(r.Basic)
	case model.Named:
		return Qual(r.Named)
	case model.Pointer:
		return jen.Op("*").Add(TypeRef(r.Elem))
	case model.Slice:
		return jen.Index().Add(TypeRef(r.Elem))
	case model.Array:
		return jen.Index(jen.Lit(int(r.Len))).Add(TypeRef(r.Elem))
	case model.Map:
		return jen.Map(TypeRef(r.Key)).Add(TypeRef(r.Elem))
	}
	return jen.Interface()
}

// PackageNames names every API package of api by its package name (db, v1alpha1, v1), the
// import names code-generator uses; it is the extra table of NewFile for generators whose
// files refer to other API packages.
func PackageNames(api *model.API) map[string]string {
	names := make(map[string]string, len(api.Packages))
	for _, p := range api.Packages {
		names[p.Path] = p.Name
	}
	return names
}

// Doc renders doc as `//` line comments, one per line, for a declaration or a struct field:
// jennifer renders a multi-line Comment as a `/* */` block, which breaks on doc text holding
// "*/" (a path pattern such as "*/status") and is not how Go documents declarations.
func Doc(doc string) []jen.Code {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	out := make([]jen.Code, len(lines))
	for i, line := range lines {
		out[i] = jen.Comment(line)
	}
	return out
}

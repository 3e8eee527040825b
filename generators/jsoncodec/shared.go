package jsoncodec

import (
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// SharedPkg holds, once, the codecs of the k8s.io/apimachinery structs every group uses
// (ObjectMeta, ListMeta, Status, Condition, ...) as exported Encode<X> and Decode<X>
// functions; generated codecs call them directly. sharedTypes, in zz_generated.shared.go,
// maps each type it holds to its <X>; both are written by TestSharedCodecs (`go test
// ./generators/jsoncodec -run TestSharedCodecs -update`), which fails when either is stale.
const SharedPkg = emit.RuntimePath + "/jsoncodec/apimachinery"

// generateShared renders SharedPkg's zz_generated.json.go from api (testdata/input/shared
// loaded with the real loader): the codecs of every supported struct it reaches outside its
// API packages. It also returns the type names with their function suffixes, for sharedTypes.
func generateShared(api *model.API) ([]byte, map[string]string, error) {
	a := newAnalysis()
	var types []*model.Type
	byName := map[string]int{}
	for _, t := range api.Types {
		if ok, _ := a.supported(t); ok && !t.Local {
			types = append(types, t)
			byName[t.Name.Name]++
		}
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name.String() < types[j].Name.String() })
	g := &gen{a: a, pkg: SharedPkg, local: map[*model.Type]string{}, encPrefix: "Encode", decPrefix: "Decode", noShared: true}
	names := map[string]string{}
	for _, t := range types {
		n := t.Name.Name
		if byName[n] > 1 { // two packages' types of one name: prefix the package's import name
			n = exportedIdent(importName(t.Name.Package)) + n
		}
		g.local[t] = n
		names[t.Name.String()] = n
	}
	f := emit.NewFile(SharedPkg, "apimachinery", nil)
	g.emit(f, types)
	out, err := emit.Render(f, "")
	if err != nil {
		return nil, nil, err
	}
	return out, names, nil
}

// importName is the name generated code imports path by.
func importName(path string) string {
	if n, ok := emit.ImportNames[path]; ok {
		return n
	}
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

// exportedIdent upper-cases the first letter of an ASCII identifier.
func exportedIdent(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// sharedNamesFile renders zz_generated.shared.go: sharedTypes listing names.
func sharedNamesFile(names map[string]string) ([]byte, error) {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	entries := make([]jen.Code, len(keys))
	for i, k := range keys {
		entries[i] = jen.Lit(k).Op(":").Lit(names[k])
	}
	f := emit.NewFile("github.com/apigen-dev/apigen/generators/jsoncodec", "jsoncodec", nil)
	f.Comment("sharedTypes maps the Go type names whose codecs SharedPkg holds to the <X> of their Encode<X> and Decode<X>.")
	f.Var().Id("sharedTypes").Op("=").Map(jen.String()).String().Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, entries...)
	return emit.Render(f, "")
}

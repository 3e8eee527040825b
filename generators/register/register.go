package register

import (
	"path/filepath"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Name is the generator's name and the <name> of the zz_generated.<name>.go files it writes.
const Name = "register"

// FileName is the base name of the file written in every API package.
const FileName = "zz_generated." + Name + ".go"

const (
	runtimePkg = "k8s.io/apimachinery/pkg/runtime"
	schemaPkg  = "k8s.io/apimachinery/pkg/runtime/schema"
	metav1Pkg  = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// New returns the register generator.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name implements emit.Generator.
func (generator) Name() string { return Name }

// Generate implements emit.Generator: one zz_generated.register.go per hub and version package
// of every group, keyed by absolute path, except for packages that declare addKnownTypes by
// hand or already declare every name the file would. Errors: a rendering failure only.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		for _, u := range units(g) {
			if u.pkg.HasFunc("addKnownTypes") {
				continue
			}
			if f := u.file(g.Name); f != nil {
				fs.Add(filepath.Join(u.pkg.Dir, FileName), f, "")
			}
		}
	}
	return fs.Result()
}

// unit is one package to register: its version (empty for the hub) and the names of the
// types it adds to the scheme, in registration order.
type unit struct {
	pkg     *model.Package
	version string
	types   []string
}

// units returns the group's hub (unless the hub is a version) and its versions, in that order.
func units(g *model.Group) []unit {
	var us []unit
	if g.Hub != nil && !g.HubIsVersion {
		us = append(us, unit{pkg: g.Hub, types: hubTypes(g)})
	}
	for _, v := range g.Versions {
		var types []string
		for _, k := range sortedKinds(v.Kinds) {
			types = append(types, kindTypes(k)...)
		}
		us = append(us, unit{pkg: v.Package, version: v.Name, types: types})
	}
	return us
}

// sortedKinds returns the kinds sorted by name, as the model promises; sorting again keeps the
// output deterministic whatever built the model.
func sortedKinds(kinds []*model.Kind) []*model.Kind {
	out := append([]*model.Kind(nil), kinds...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// kindTypes returns the kind's type name and its list's, when it has one.
func kindTypes(k *model.Kind) []string {
	if k.List == nil {
		return []string{k.Name}
	}
	return []string{k.Name, k.List.Name.Name}
}

// hubTypes returns the hub's types named like a kind (or a kind's list) of some version,
// sorted by kind, each kind followed by its list.
func hubTypes(g *model.Group) []string {
	seen := map[string]bool{}
	var kinds []*model.Kind
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if !seen[k.Name] && g.Hub.Type(k.Name) != nil {
				seen[k.Name] = true
				kinds = append(kinds, k)
			}
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Name < kinds[j].Name })
	var types []string
	for _, k := range kinds {
		for _, n := range kindTypes(k) {
			if g.Hub.Type(n) != nil {
				types = append(types, n)
			}
		}
	}
	return types
}

// file renders the unit's register file for group groupName, declaring only the names the
// package does not declare by hand, or returns nil when nothing is missing. A package that
// declares SchemeBuilder (or AddToScheme) registers its types itself, as kubebuilder's
// groupversion_info.go does: the file then adds only what the other generated files refer
// to (SchemeGroupVersion, localSchemeBuilder) and leaves SchemeBuilder, AddToScheme and
// addKnownTypes to the package.
func (u unit) file(groupName string) *jen.File {
	f := emit.NewFile(u.pkg.Path, u.pkg.Name, nil)
	missing := func(name string) bool { return !u.pkg.Declares(name) }
	byHand := !missing("SchemeBuilder") || !missing("AddToScheme")
	n := 0
	if missing("GroupName") {
		f.Comment("GroupName is the group name used in this package.")
		f.Const().Id("GroupName").Op("=").Lit(groupName)
		f.Line()
		n++
	}
	if missing("SchemeGroupVersion") {
		u.schemeGroupVersion(f, groupName, !missing("GroupName"))
		n++
	}
	if missing("Kind") {
		f.Comment("Kind takes an unqualified kind and returns a group-qualified GroupKind.")
		f.Func().Id("Kind").Params(jen.Id("kind").String()).Qual(schemaPkg, "GroupKind").Block(
			jen.Return(jen.Id("SchemeGroupVersion").Dot("WithKind").Call(jen.Id("kind")).Dot("GroupKind").Call()),
		)
		f.Line()
		n++
	}
	if missing("Resource") {
		f.Comment("Resource takes an unqualified resource and returns a group-qualified GroupResource.")
		f.Func().Id("Resource").Params(jen.Id("resource").String()).Qual(schemaPkg, "GroupResource").Block(
			jen.Return(jen.Id("SchemeGroupVersion").Dot("WithResource").Call(jen.Id("resource")).Dot("GroupResource").Call()),
		)
		f.Line()
		n++
	}
	switch {
	case !byHand:
		u.schemeBuilder(f)
		u.addKnownTypes(f)
		n++
	case missing("localSchemeBuilder"):
		u.localSchemeBuilder(f)
		n++
	}
	if n == 0 {
		return nil
	}
	return f
}

// schemeGroupVersion emits SchemeGroupVersion, naming the group through GroupName unless the
// package declares a GroupName of its own (whose value apigen does not read).
func (u unit) schemeGroupVersion(f *jen.File, groupName string, ownGroupName bool) {
	version := jen.Lit(u.version)
	if u.version == "" {
		version = jen.Qual(runtimePkg, "APIVersionInternal")
	}
	group := jen.Code(jen.Id("GroupName"))
	if ownGroupName {
		group = jen.Lit(groupName)
	}
	f.Comment("SchemeGroupVersion is group version used to register these objects.")
	f.Var().Id("SchemeGroupVersion").Op("=").Qual(schemaPkg, "GroupVersion").Values(jen.Dict{
		jen.Id("Group"):   group,
		jen.Id("Version"): version,
	})
	f.Line()
}

// schemeBuilder emits SchemeBuilder, localSchemeBuilder and AddToScheme.
func (u unit) schemeBuilder(f *jen.File) {
	f.Var().Defs(
		jen.Comment("SchemeBuilder collects the functions that add this package's types, conversions"),
		jen.Comment("and defaults to a scheme."),
		jen.Id("SchemeBuilder").Op("=").Qual(runtimePkg, "NewSchemeBuilder").Call(jen.Id("addKnownTypes")),
		jen.Comment("localSchemeBuilder lets the generated conversion and defaulting files register"),
		jen.Comment("their functions from init."),
		jen.Id("localSchemeBuilder").Op("=").Op("&").Id("SchemeBuilder"),
		jen.Comment("AddToScheme adds this package's types, conversions and defaults to a scheme."),
		jen.Id("AddToScheme").Op("=").Id("localSchemeBuilder").Dot("AddToScheme"),
	)
	f.Line()
}

// localSchemeBuilder emits localSchemeBuilder over the package's hand-written SchemeBuilder:
// the runtime.SchemeBuilder it is, or the one it embeds (controller-runtime's scheme.Builder).
func (u unit) localSchemeBuilder(f *jen.File) {
	target := jen.Id("SchemeBuilder")
	if field := u.pkg.SchemeBuilderField; field != "" {
		target = jen.Id("SchemeBuilder").Dot(field)
	}
	f.Comment("localSchemeBuilder lets the generated conversion and defaulting files register their")
	f.Comment("functions from init, through the package's own SchemeBuilder.")
	f.Var().Id("localSchemeBuilder").Op("=").Op("&").Add(target)
	f.Line()
}

// addKnownTypes emits the function registering the unit's types with the scheme.
func (u unit) addKnownTypes(f *jen.File) {
	objs := []jen.Code{jen.Id("SchemeGroupVersion")}
	for _, n := range u.types {
		objs = append(objs, jen.Line().Op("&").Id(n).Values())
	}
	objs = append(objs, jen.Line())
	body := []jen.Code{jen.Id("scheme").Dot("AddKnownTypes").Call(objs...)}
	if u.version != "" {
		body = append(body, jen.Qual(metav1Pkg, "AddToGroupVersion").Call(jen.Id("scheme"), jen.Id("SchemeGroupVersion")))
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Comment("addKnownTypes adds the package's kinds and their lists to scheme.")
	f.Func().Id("addKnownTypes").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(body...)
}

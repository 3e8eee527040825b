package applyconfigurations

import (
	"fmt"
	"sort"

	"github.com/dave/jennifer/jen"
	"go.yaml.in/yaml/v2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/openapi"
)

// Import paths of the extract functions, ForKind and the internal schema.
const (
	managedfieldsPkg = "k8s.io/apimachinery/pkg/util/managedfields"
	smdTypedPkg      = "sigs.k8s.io/structured-merge-diff/v6/typed"
)

// extract declares Extract<Kind>From, Extract<Kind> and Extract<Kind><Subresource> of a client
// kind, as applyconfiguration-gen's generateClientgenExtract.
func (g *gen) extract(f *jen.File, at acType) {
	t, k := at.t, at.kind
	ac := t.Name.Name + "ApplyConfiguration"
	obj := clientlayout.Private(t.Name.Name)
	from := "Extract" + t.Name.Name + "From"
	ret := []jen.Code{jen.Op("*").Id(ac), jen.Error()}
	body := []jen.Code{
		jen.Id("b").Op(":=").Op("&").Id(ac).Values(),
		jen.Err().Op(":=").Qual(managedfieldsPkg, "ExtractInto").Call(jen.Id(obj),
			jen.Qual(g.tree.ApplyPath("internal"), "Parser").Call().Dot("Type").Call(jen.Lit(openapi.DefinitionName(t))),
			jen.Id("fieldManager"), jen.Id("b"), jen.Id("subresource")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("b").Dot("WithName").Call(jen.Id(obj).Dot("Name")),
	}
	if k.Namespaced {
		body = append(body, jen.Id("b").Dot("WithNamespace").Call(jen.Id(obj).Dot("Namespace")))
	}
	body = append(body, jen.Id("b").Dot("WithKind").Call(jen.Lit(t.Name.Name)),
		jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(at.gv.APIVersion())), jen.Return(jen.Id("b"), jen.Nil()))
	param := jen.Id(obj).Op("*").Add(emit.Qual(t))
	f.Commentf("%s extracts the applied configuration owned by fieldManager from %s for the", from, obj)
	f.Comment("given subresource (\"\" for the main resource, \"status\", \"scale\", ...). The object must be unmodified, as")
	f.Comment("retrieved from the API server; the result holds fewer fields than the manager applied when another")
	f.Comment("manager has taken some of them over.")
	f.Func().Id(from).Params(param.Clone(), jen.Id("fieldManager").String(), jen.Id("subresource").String()).Params(ret...).Block(body...)
	f.Commentf("Extract%s extracts the applied configuration owned by fieldManager from %s, for an", t.Name.Name, obj)
	f.Commentf("extract/modify-in-place/apply workflow; see %s.", from)
	f.Func().Id("Extract"+t.Name.Name).Params(param.Clone(), jen.Id("fieldManager").String()).Params(ret...).Block(
		jen.Return(jen.Id(from).Call(jen.Id(obj), jen.Id("fieldManager"), jen.Lit(""))))
	for _, sub := range subresources(k) {
		name := "Extract" + t.Name.Name + clientlayout.Public(sub)
		f.Commentf("%s extracts the applied configuration owned by fieldManager from %s for the %s subresource.", name, obj, sub)
		f.Func().Id(name).Params(param.Clone(), jen.Id("fieldManager").String()).Params(ret...).Block(
			jen.Return(jen.Id(from).Call(jen.Id(obj), jen.Id("fieldManager"), jen.Lit(sub))))
	}
}

// subresources are the kind's subresources an apply configuration can be extracted for,
// sorted: status when the type has a Status field and no +genclient:noStatus, and every
// +genclient:method subresource.
func subresources(k *model.Kind) []string {
	set := map[string]bool{}
	if !k.Type.Markers.NoStatus && k.Type.Field("Status") != nil {
		set["status"] = true
	}
	for _, m := range k.Client.Methods {
		if m.Subresource != "" {
			set[m.Subresource] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// utilsFile is utils.go: ForKind and NewTypeConverter.
func (g *gen) utilsFile(types []acType) *jen.File {
	f := emit.NewFile(g.tree.ApplyPath(""), "applyconfiguration", g.names)
	var cases []jen.Code
	var last string
	for _, at := range types {
		if seg := at.gv.Segment(); seg != last {
			last = seg
			cases = append(cases, jen.Commentf("Group=%s, Version=%s", at.gv.Group.Name, at.gv.Version.Name))
		}
		cases = append(cases, jen.Case(jen.Qual(at.gv.Version.Package.Path, "SchemeGroupVersion").Dot("WithKind").Call(jen.Lit(at.t.Name.Name))).Block(
			jen.Return(jen.Op("&").Qual(g.tree.ApplyPath(at.gv.Segment()), at.t.Name.Name+"ApplyConfiguration").Values())))
	}
	f.Comment("ForKind returns an apply configuration type for the given GroupVersionKind, or nil if no")
	f.Comment("apply configuration type exists for the given GroupVersionKind.")
	f.Func().Id("ForKind").Params(jen.Id("kind").Qual(clientlayout.SchemaPkg, "GroupVersionKind")).Interface().Block(
		jen.Switch(jen.Id("kind")).Block(cases...), jen.Return(jen.Nil()))
	f.Comment("NewTypeConverter returns a managedfields.TypeConverter for the scheme's types and the apply")
	f.Comment("configurations' structured-merge schema (internal.Parser), as client-go's fake clientsets use.")
	f.Func().Id("NewTypeConverter").Params(jen.Id("scheme").Op("*").Qual(clientlayout.RuntimePkg, "Scheme")).Qual(managedfieldsPkg, "TypeConverter").Block(
		jen.Return(jen.Qual(managedfieldsPkg, "NewSchemeTypeConverter").Call(jen.Id("scheme"), jen.Qual(g.tree.ApplyPath("internal"), "Parser").Call())))
	return f
}

// internalFile renders internal/internal.go: Parser over the structured-merge schema of the
// client kinds that allow apply and every type they reach.
func (g *gen) internalFile(types []acType) (*jen.File, error) {
	var roots []*model.Type
	for _, at := range types {
		if at.kind != nil && hasApply(at.kind) {
			roots = append(roots, at.t)
		}
	}
	yamlText, err := SchemaYAML(roots)
	if err != nil {
		return nil, err
	}
	f := emit.NewFile(g.tree.ApplyPath("internal"), "internal", g.names)
	f.Comment("Parser returns the parser of the structured-merge schema of the apply configurations' types,")
	f.Comment("built once. It panics if the embedded schema does not parse, which is a generator bug.")
	f.Func().Id("Parser").Params().Op("*").Qual(smdTypedPkg, "Parser").Block(
		jen.Id("parserOnce").Dot("Do").Call(jen.Func().Params().Block(
			jen.Var().Err().Error(),
			jen.List(jen.Id("parser"), jen.Err()).Op("=").Qual(smdTypedPkg, "NewParser").Call(jen.Id("schemaYAML")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit("Failed to parse schema: %v"), jen.Err()))),
		)),
		jen.Return(jen.Id("parser")),
	)
	f.Var().Id("parserOnce").Qual("sync", "Once")
	f.Var().Id("parser").Op("*").Qual(smdTypedPkg, "Parser")
	f.Var().Id("schemaYAML").Op("=").Qual(smdTypedPkg, "YAMLObject").Call(jen.Id("`" + yamlText + "`"))
	return f, nil
}

// SchemaYAML returns the structured-merge-diff schema of roots and every type they reach, in
// YAML, as applyconfiguration-gen embeds it: the OpenAPI definitions of generators/openapi
// converted by kube-openapi's schemaconv, types and fields sorted by name, with the
// __untyped_atomic_ and __untyped_deduced_ types schemaconv adds. Errors: a type without an
// OpenAPI representation, or one schemaconv rejects.
func SchemaYAML(roots []*model.Type) (string, error) {
	defs, err := openapi.Definitions(roots)
	if err != nil {
		return "", err
	}
	models := make(map[string]*spec.Schema, len(defs))
	for name, d := range defs {
		models[name] = &d
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		return "", fmt.Errorf("cannot convert the OpenAPI definitions to a structured-merge schema: %w", err)
	}
	sortSchema(s)
	b, err := yaml.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("cannot encode the structured-merge schema: %w", err)
	}
	return string(b), nil
}

// sortSchema orders the schema's types and every map's fields by name, so the output does not
// depend on map iteration.
func sortSchema(s *schema.Schema) {
	sort.Slice(s.Types, func(i, j int) bool { return s.Types[i].Name < s.Types[j].Name })
	for i := range s.Types {
		sortAtom(&s.Types[i].Atom)
	}
}

func sortAtom(a *schema.Atom) {
	if a.Map != nil {
		sort.Slice(a.Map.Fields, func(i, j int) bool { return a.Map.Fields[i].Name < a.Map.Fields[j].Name })
		for i := range a.Map.Fields {
			sortAtom(&a.Map.Fields[i].Type.Inlined)
		}
		sortAtom(&a.Map.ElementType.Inlined)
	}
	if a.List != nil {
		sortAtom(&a.List.ElementType.Inlined)
	}
}

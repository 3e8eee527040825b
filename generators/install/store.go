package install

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// storeFunc emits new<Kind>Store: the resource's storage, table convertor and registry.Store.
func storeFunc(f *jen.File, g *model.Group, r *resource) {
	if r.kind.CreateOnly {
		createOnlyStoreFunc(f, g, r)
		return
	}
	if r.userREST() {
		userRESTStoreFunc(f, g, r)
		return
	}
	k := r.kind
	qualified := qualifiedResource(k.Plural, g.Name)
	newObj := jen.Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(emit.Qual(r.obj)).Values()))
	newList := jen.Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(emit.Qual(r.list)).Values()))
	groupResource := func(name string) jen.Code {
		return jen.Qual(schemaPkg, "GroupResource").Values(
			jen.Id("Group").Op(":").Lit(g.Name), jen.Id("Resource").Op(":").Lit(name))
	}
	body := []jen.Code{
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("storage").Dot("NewStorage").Call(
			groupResource(k.Plural), groupVersion(r.storage), jen.Id("scheme"), newObj),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(),
			jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot create the storage of "+qualified+": %w"), jen.Err()))),
	}
	stored := "storing " + r.obj.Name.Name + " objects as " + r.storage.Name
	if k.UserStorage == "interface" {
		// +apigen:storage=interface: the install package's hand-written new<Kind>Storage.
		body = []jen.Code{
			jen.List(jen.Id("s"), jen.Err()).Op(":=").Qual(registryPkg, "NewUserStorage").Call(jen.Id("storage"), jen.Id("scheme"),
				jen.Qual(registryPkg, "UserStorageConfig").Custom(multi,
					jen.Id("Resource").Op(":").Add(groupResource(k.Plural)),
					jen.Id("StorageVersion").Op(":").Add(groupVersion(r.storage)),
					jen.Id("NewFunc").Op(":").Add(newObj),
					jen.Id("NewListFunc").Op(":").Add(newList)),
				jen.Id(k.UserStorageFunc())),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		}
		stored = "keeping " + r.obj.Name.Name + " objects, as " + r.storage.Name + ", in the storage " + k.UserStorageFunc() + " returns (+apigen:storage=interface)"
	}
	fields := []jen.Code{
		jen.Id("NewFunc").Op(":").Add(newObj),
		jen.Id("NewListFunc").Op(":").Add(newList),
		jen.Id("DefaultQualifiedResource").Op(":").Add(groupResource(k.Plural)),
		jen.Id("SingularQualifiedResource").Op(":").Add(groupResource(k.Singular)),
		jen.Id("Strategy").Op(":").Id(r.strategyName()).Values(jen.Id("scheme").Op(":").Id("scheme")),
		jen.Id("Storage").Op(":").Id("s"),
	}
	switch k.NameValidation {
	case "DNS1123Label":
		fields = append(fields, jen.Id("NameValidation").Op(":").Qual(registryPkg, "NameIsDNSLabel"))
	case "PathSegment":
		fields = append(fields, jen.Id("NameValidation").Op(":").Qual(registryPkg, "NameIsPathSegment"))
	}
	body, fields = presentation(k, r, qualified, body, fields)
	if len(r.selectable) == 0 {
		body = append(body, jen.Return(jen.Op("&").Qual(registryPkg, "Store").Custom(multi, fields...), jen.Nil()))
	} else {
		// Field selectors are evaluated on the hub object: check the paths resolve there.
		fields = append(fields, jen.Id("SelectableFields").Op(":").Add(stringSlice(selectable(r.selectable))))
		body = append(body,
			jen.Id("store").Op(":=").Op("&").Qual(registryPkg, "Store").Custom(multi, fields...),
			jen.If(jen.Err().Op(":=").Qual(registryPkg, "ValidateSelectableFields").Call(
				jen.Id("store").Dot("NewFunc").Call(), jen.Id("store").Dot("SelectableFields")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot build the store of "+qualified+": %w"), jen.Err()))),
			jen.Return(jen.Id("store"), jen.Nil()))
	}
	f.Commentf("%s builds the registry.Store of %s, %s.", r.storeFunc(), qualified, stored)
	f.Func().Id(r.storeFunc()).Params(
		jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme"),
		jen.Id("storage").Qual(registryPkg, "StorageFactory"),
	).Params(jen.Op("*").Qual(registryPkg, "Store"), jen.Error()).Block(body...)
}

// createOnlyStoreFunc emits new<Kind>Store for a create-only kind: a registry.CreateOnlyStore
// validating with the kind's strategy, without storage.
func createOnlyStoreFunc(f *jen.File, g *model.Group, r *resource) {
	k := r.kind
	groupResource := func(name string) jen.Code {
		return jen.Qual(schemaPkg, "GroupResource").Values(
			jen.Id("Group").Op(":").Lit(g.Name), jen.Id("Resource").Op(":").Lit(name))
	}
	fields := []jen.Code{
		jen.Id("NewFunc").Op(":").Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(emit.Qual(r.obj)).Values())),
		jen.Id("DefaultQualifiedResource").Op(":").Add(groupResource(k.Plural)),
		jen.Id("SingularQualifiedResource").Op(":").Add(groupResource(k.Singular)),
		jen.Id("Strategy").Op(":").Id(r.strategyName()).Values(jen.Id("scheme").Op(":").Id("scheme")),
	}
	f.Commentf("%s builds the registry.CreateOnlyStore of %s: %s objects are validated and answered, never stored.",
		r.storeFunc(), qualifiedResource(k.Plural, g.Name), r.obj.Name.Name)
	f.Func().Id(r.storeFunc()).Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).
		Op("*").Qual(registryPkg, "CreateOnlyStore").Block(
		jen.Return(jen.Op("&").Qual(registryPkg, "CreateOnlyStore").Custom(multi, fields...)))
}

// presentation appends to a store's constructor body and its struct fields what kubectl
// shows of kind k (qualified: "databases.db.example.com"): short names, categories and, when
// r has printer columns, the tableconvertor built from them. The etcd-backed Store and the
// user's REST (registry.UserREST) take the same fields.
func presentation(k *model.Kind, r *resource, qualified string, body, fields []jen.Code) ([]jen.Code, []jen.Code) {
	if len(k.ShortNames) > 0 {
		fields = append(fields, jen.Id("ShortNameList").Op(":").Add(stringSlice(k.ShortNames)))
	}
	if len(k.Categories) > 0 {
		fields = append(fields, jen.Id("CategoryList").Op(":").Add(stringSlice(k.Categories)))
	}
	if len(r.columns) > 0 {
		body = append(body,
			jen.List(jen.Id("table"), jen.Err()).Op(":=").Qual(tablePkg, "New").Call(columns(r.columns)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(),
				jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot build the table convertor of "+qualified+": %w"), jen.Err()))))
		fields = append(fields, jen.Id("TableConvertor").Op(":").Id("table"))
	}
	return body, fields
}

// selectable turns selectable-field JSON paths (".spec.engine") into the field names
// field selectors use ("spec.engine").
func selectable(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.TrimPrefix(p, ".")
	}
	return out
}

// scaleSpec renders a registry.ScaleSpec literal, the selector path omitted when unset.
func scaleSpec(s *model.Scale) jen.Code {
	fields := []jen.Code{
		jen.Id("SpecReplicasPath").Op(":").Lit(s.SpecReplicasPath),
		jen.Id("StatusReplicasPath").Op(":").Lit(s.StatusReplicasPath),
	}
	if s.LabelSelectorPath != "" {
		fields = append(fields, jen.Id("LabelSelectorPath").Op(":").Lit(s.LabelSelectorPath))
	}
	return jen.Qual(registryPkg, "ScaleSpec").Custom(multi, fields...)
}

// columns renders the printer columns as a []tableconvertor.Column literal, zero fields omitted.
func columns(cs []model.PrinterColumn) jen.Code {
	items := make([]jen.Code, len(cs))
	for i, c := range cs {
		var fields []jen.Code
		add := func(name, v string) {
			if v != "" {
				fields = append(fields, jen.Id(name).Op(":").Lit(v))
			}
		}
		add("Name", c.Name)
		add("Type", c.Type)
		add("Format", c.Format)
		add("Description", c.Description)
		if c.Priority != 0 {
			fields = append(fields, jen.Id("Priority").Op(":").Lit(int(c.Priority)))
		}
		add("JSONPath", c.JSONPath)
		items[i] = jen.Values(fields...)
	}
	return jen.Index().Qual(tablePkg, "Column").Custom(multi, items...)
}

func stringSlice(ss []string) jen.Code {
	lits := make([]jen.Code, len(ss))
	for i, s := range ss {
		lits[i] = jen.Lit(s)
	}
	return jen.Index().String().Values(lits...)
}

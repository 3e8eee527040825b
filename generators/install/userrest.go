package install

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// userREST reports whether the user writes r's REST (+apigen:storage=rest).
func (r *resource) userREST() bool { return r.kind.UserStorage == "rest" }

// restFunc names the constructor the generated NewAPIGroupInfo calls for a
// +apigen:storage=rest kind: new<Kind>REST, declared by hand in the group's install package
// (generators/load checks it is there) as
//
//	func new<Kind>REST(scheme *runtime.Scheme, group *registry.APIGroupInfo) (rest.Getter, error)
//
// group holds the group's etcd-backed resources, already built (e.g. to read the objects a
// computed resource derives from); the result implements rest.Getter and any of List,
// rest.Watcher, rest.Creater, rest.Updater, rest.GracefulDeleter and rest.CollectionDeleter
// (see registry.UserREST).
func (r *resource) restFunc() string { return "new" + r.kind.Name + "REST" }

// anyUserREST reports whether some resource's REST is the user's.
func anyUserREST(rs []*resource) bool {
	for _, r := range rs {
		if r.userREST() {
			return true
		}
	}
	return false
}

// userRESTServe returns the statements of NewAPIGroupInfo that build each user-written REST
// over info (the APIGroupInfo of the other resources) and serve it in every version that
// serves its kind, with the verbs it implements.
func userRESTServe(g *model.Group, rs []*resource) []jen.Code {
	var body []jen.Code
	for _, r := range rs {
		if !r.userREST() {
			continue
		}
		body = append(body,
			jen.List(jen.Id(r.storeVar()), jen.Err()).Op(":=").Id(r.storeFunc()).Call(jen.Id("scheme"), jen.Id("info")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		for _, v := range servedVersions(g) {
			if servedKind(v, r.kind.Name) == nil {
				continue
			}
			body = append(body, jen.Id("info").Dot("Serve").Call(jen.Lit(v.Name), jen.Lit(r.kind.Plural),
				jen.Id(r.storeVar()), jen.Id(r.storeVar()).Dot("Verbs").Call()))
		}
	}
	return body
}

// userRESTStoreFunc emits new<Kind>Store for a +apigen:storage=rest kind: the user's
// new<Kind>REST wrapped in a registry.UserREST with the kind's names, scope, printer
// columns, selectable fields and +genclient verbs.
func userRESTStoreFunc(f *jen.File, g *model.Group, r *resource) {
	k := r.kind
	qualified := qualifiedResource(k.Plural, g.Name)
	groupResource := func(name string) jen.Code {
		return jen.Qual(schemaPkg, "GroupResource").Values(
			jen.Id("Group").Op(":").Lit(g.Name), jen.Id("Resource").Op(":").Lit(name))
	}
	body := []jen.Code{
		jen.List(jen.Id("impl"), jen.Err()).Op(":=").Id(r.restFunc()).Call(jen.Id("scheme"), jen.Id("group")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(),
			jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot create the REST of "+qualified+": %w"), jen.Err()))),
		jen.If(jen.Id("impl").Op("==").Nil()).Block(jen.Return(jen.Nil(),
			jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot serve "+qualified+": "+r.restFunc()+" returned no REST and no error")))),
	}
	fields := []jen.Code{
		jen.Id("REST").Op(":").Id("impl"),
		jen.Id("NewFunc").Op(":").Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(emit.Qual(r.obj)).Values())),
		jen.Id("NewListFunc").Op(":").Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(emit.Qual(r.list)).Values())),
		jen.Id("DefaultQualifiedResource").Op(":").Add(groupResource(k.Plural)),
		jen.Id("SingularQualifiedResource").Op(":").Add(groupResource(k.Singular)),
		jen.Id("Namespaced").Op(":").Lit(k.Namespaced),
	}
	body, fields = presentation(k, r, qualified, body, fields)
	if len(r.selectable) > 0 {
		fields = append(fields, jen.Id("SelectableFields").Op(":").Add(stringSlice(selectable(r.selectable))))
	}
	if k.Client != nil && k.Client.Limited {
		fields = append(fields, jen.Id("AllowedVerbs").Op(":").Add(stringSlice(serverVerbs(k.Client, ""))))
	}
	body = append(body, jen.Id("store").Op(":=").Op("&").Qual(registryPkg, "UserREST").Custom(multi, fields...))
	if len(r.selectable) > 0 {
		body = append(body, jen.If(jen.Err().Op(":=").Qual(registryPkg, "ValidateSelectableFields").Call(
			jen.Id("store").Dot("NewFunc").Call(), jen.Id("store").Dot("SelectableFields")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot build the store of "+qualified+": %w"), jen.Err()))))
	}
	body = append(body, jen.Return(jen.Id("store"), jen.Nil()))
	f.Commentf("%s serves %s with the REST the hand-written %s of this package returns (+apigen:storage=rest),",
		r.storeFunc(), qualified, r.restFunc())
	f.Comment("wrapped in a registry.UserREST that adds the kind's names, table and selectors and lists only the verbs it implements.")
	f.Func().Id(r.storeFunc()).Params(
		jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme"),
		jen.Id("group").Op("*").Qual(registryPkg, "APIGroupInfo"),
	).Params(jen.Op("*").Qual(registryPkg, "UserREST"), jen.Error()).Block(body...)
}

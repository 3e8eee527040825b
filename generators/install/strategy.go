package install

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	equalitygen "github.com/apigen-dev/apigen/generators/equality"
	"github.com/apigen-dev/apigen/generators/model"
)

// strategyFileFor renders the strategies of every resource.
func strategyFileFor(g *model.Group, rs []*resource) *jen.File {
	f := newFile(g)
	first := true
	for _, r := range rs {
		if r.userREST() {
			continue // no strategy: the user's REST owns its writes
		}
		if !first {
			f.Line()
		}
		first = false
		strategy(f, g, r)
		if r.kind.StatusSubresource {
			f.Line()
			statusStrategy(f, g, r)
		}
	}
	return f
}

// objName is "db.Database" for comments.
func objName(r *resource, g *model.Group) string { return r.hub.Name + "." + r.obj.Name.Name }

// ctxObj and ctxObjOld are the parameter lists of the Strategy methods.
func ctxObj() jen.Code {
	return jen.Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("obj").Qual(runtimePkg, "Object"))
}

func ctxObjOld() jen.Code {
	return jen.Params(jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("obj"), jen.Id("old")).Qual(runtimePkg, "Object"))
}

// assertBoth is `newObj, oldObj := obj.(*T), old.(*T)`.
func assertBoth(r *resource) jen.Code {
	ptr := jen.Op("*").Add(emit.Qual(r.obj))
	return jen.List(jen.Id("newObj"), jen.Id("oldObj")).Op(":=").
		List(jen.Id("obj").Assert(ptr.Clone()), jen.Id("old").Assert(ptr.Clone()))
}

// strategy emits <kind>Strategy.
func strategy(f *jen.File, g *model.Group, r *resource) {
	if r.kind.CreateOnly {
		createStrategy(f, g, r)
		return
	}
	recv := strategyHead(f, r, "Strategy", fmt.Sprintf("%s implements registry.Strategy for %s.", r.strategyName(), objName(r, g)))
	prepareForCreate(f, r, recv)
	f.Line()
	prepareForUpdate(f, r, recv)
	f.Line()
	validate(f, g, r, recv)
	if statusField(r) != nil {
		f.Line()
		resetFieldsFunc(f, g, r, r.strategyName(), []string{"Status"}, nil,
			"GetResetFields returns status in every version: PrepareForUpdate keeps the stored status, so a write of",
			"the resource never owns it (server-side apply's reset fields, as Kubernetes' strategies declare them).")
	}
}

// prepareForCreate emits PrepareForCreate: status cleared when the kind has a status
// subresource, generation set to 1.
func prepareForCreate(f *jen.File, r *resource, recv *jen.Statement) {
	body := []jen.Code{jen.Id("o").Op(":=").Id("obj").Assert(jen.Op("*").Add(emit.Qual(r.obj)))}
	doc := "PrepareForCreate sets generation to 1."
	if status := statusField(r); status != nil {
		body = append(body, jen.Id("o").Dot("Status").Op("=").Add(zero(status.Type)))
		doc = "PrepareForCreate clears status (the kind has a status subresource) and sets generation to 1."
	}
	body = append(body, jen.Id("o").Dot("Generation").Op("=").Lit(1))
	f.Comment(doc)
	f.Func().Add(recv.Clone()).Id("PrepareForCreate").Add(ctxObj()).Block(body...)
}

// prepareForUpdate emits PrepareForUpdate: status kept from old when the kind has a status
// subresource; generation kept, and bumped when spec changed.
func prepareForUpdate(f *jen.File, r *resource, recv *jen.Statement) {
	body := []jen.Code{assertBoth(r)}
	var doc string
	if statusField(r) != nil {
		body = append(body, jen.Id("newObj").Dot("Status").Op("=").Id("oldObj").Dot("Status"))
		doc = "PrepareForUpdate keeps status (written only through /status) and generation, bumping generation when spec changed."
	} else {
		doc = "PrepareForUpdate keeps generation, bumping it when spec changed."
	}
	body = append(body, jen.Id("newObj").Dot("Generation").Op("=").Id("oldObj").Dot("Generation"))
	if spec := r.obj.Field("Spec"); spec != nil {
		// equality.Semantic.DeepEqual of the specs, without reflection when the spec is a
		// local type generators/equality wrote SemanticEqual_<Spec> for.
		changed := jen.Op("!").Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(jen.Id("newObj").Dot("Spec"), jen.Id("oldObj").Dot("Spec"))
		if spec.Type.Kind == model.Named && equalitygen.HasFunc(spec.Type.Named) {
			changed = jen.Op("!").Add(equalitygen.Call(spec.Type.Named, jen.Op("&").Id("newObj").Dot("Spec"), jen.Op("&").Id("oldObj").Dot("Spec")))
		}
		body = append(body, jen.If(changed).Block(jen.Id("newObj").Dot("Generation").Op("=").Id("oldObj").Dot("Generation").Op("+").Lit(1)))
	} else {
		doc = "PrepareForUpdate keeps generation: the kind has no spec to compare."
		if statusField(r) != nil {
			doc = "PrepareForUpdate keeps status (written only through /status) and generation: the kind has no spec to compare."
		}
	}
	f.Comment(doc)
	f.Func().Add(recv.Clone()).Id("PrepareForUpdate").Add(ctxObjOld()).Block(body...)
}

// strategyHead emits the strategy type (documented by doc) holding the scheme, its
// assertion to implement registry.<iface>, and NamespaceScoped; it returns the value
// receiver of its methods.
func strategyHead(f *jen.File, r *resource, iface, doc string) *jen.Statement {
	name := r.strategyName()
	f.Comment(doc)
	f.Type().Id(name).Struct(
		jen.Comment("scheme holds the declarative validation (zz_generated.validation.go) of every version."),
		jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme"),
	)
	f.Line()
	f.Var().Id("_").Qual(registryPkg, iface).Op("=").Id(name).Values()
	f.Line()
	scope := "cluster-scoped"
	if r.kind.Namespaced {
		scope = "namespaced"
	}
	recv := jen.Params(jen.Id(name))
	f.Commentf("NamespaceScoped returns %t: %s are %s.", r.kind.Namespaced, r.kind.Plural, scope)
	f.Func().Add(recv.Clone()).Id("NamespaceScoped").Params().Bool().Block(jen.Return(jen.Lit(r.kind.Namespaced)))
	f.Line()
	return recv
}

// createStrategy emits <kind>Strategy for a create-only kind: a registry.CreateStrategy
// (NamespaceScoped and Validate).
func createStrategy(f *jen.File, g *model.Group, r *resource) {
	name := r.strategyName()
	strategyHead(f, r, "CreateStrategy", fmt.Sprintf("%s implements registry.CreateStrategy for %s, a create-only kind.", name, objName(r, g)))
	kind := r.obj.Name.Name
	hookName := "Validate" + kind
	create, _ := hooks(g, r)
	body := hookBody(declarative(jen.Nil()), create)
	doc := fmt.Sprintf("Validate runs the validation generated from the markers of the request's version; the package %s declares no %s hook.", r.hub.Name, hookName)
	switch {
	case g.Validation != nil:
		doc = hooksDoc("Validate", "runs the validation generated from the markers of the request's version", create)
	case len(create) > 0:
		doc = fmt.Sprintf("Validate runs the validation generated from the markers of the request's version, then %s.%s.", r.hub.Name, hookName)
	}
	f.Comment(doc)
	f.Func().Params(jen.Id("s").Id(name)).Id("Validate").Add(ctxObj()).Qual(fieldPkg, "ErrorList").Block(body...)
}

// hookCall is one hand-written validation function a strategy calls after the declarative
// validation: pkg.name(obj) or pkg.name(obj, old), the objects asserted to the hub type; local
// is the name the generated file imports pkg by, note says why an update calls a create hook.
type hookCall struct {
	pkg    *model.Package
	local  string
	name   string
	obj    *model.Type
	update bool
	ctx    bool // the function takes the request's context first
	note   string
}

// render is `pkg.name(obj.(*T))...` or `pkg.name(obj.(*T), old.(*T))...`, with ctx first
// when the function takes it.
func (c hookCall) render() jen.Code {
	ptr := jen.Op("*").Add(emit.Qual(c.obj))
	var args []jen.Code
	if c.ctx {
		args = append(args, jen.Id("ctx"))
	}
	args = append(args, jen.Id("obj").Assert(ptr.Clone()))
	if c.update {
		args = append(args, jen.Id("old").Assert(ptr.Clone()))
	}
	return jen.Qual(c.pkg.Path, c.name).Call(args...).Op("...")
}

// hooks returns the hand-written validation the strategy of r calls on create and on update,
// in order: the hooks of the package holding the kind's objects (r.hub), then those of the
// group's validation package (model.Group.Validation, as code-generator projects and
// sample-apiserver place them, called as Kubernetes' strategies call theirs). For each
// package, an update calls Validate<Kind>Update, else Validate<Kind>.
func hooks(g *model.Group, r *resource) (create, update []hookCall) {
	kind := r.obj.Name.Name
	c, u := "Validate"+kind, "Validate"+kind+"Update"
	pkgs := []*model.Package{r.hub}
	if g.Validation != nil {
		pkgs = append(pkgs, g.Validation)
	}
	for _, p := range pkgs {
		local := p.Name // the name generated files import p by
		takesCtx := func(string) bool { return false }
		if p == g.Validation {
			local = g.Hub.Name + p.Name
			takesCtx = func(name string) bool { return g.ValidationTakesContext[name] }
		}
		if p.HasFunc(c) {
			create = append(create, hookCall{pkg: p, local: local, name: c, obj: r.obj, ctx: takesCtx(c)})
		}
		switch {
		case p.HasFunc(u):
			update = append(update, hookCall{pkg: p, local: local, name: u, obj: r.obj, update: true, ctx: takesCtx(u)})
		case p.HasFunc(c):
			update = append(update, hookCall{pkg: p, local: local, name: c, obj: r.obj, ctx: takesCtx(c), note: fmt.Sprintf(" (the package declares no %s)", u)})
		}
	}
	return create, update
}

// declarative is `errs := validation.Declarative(ctx, s.scheme, obj, old)`.
func declarative(old jen.Code) jen.Code {
	return jen.Id("errs").Op(":=").Qual(validationPkg, "Declarative").Call(jen.Id("ctx"), jen.Id("s").Dot("scheme"), jen.Id("obj"), old)
}

// hookBody is first (the declarative validation into errs), then each call appended to errs,
// then errs returned.
func hookBody(first jen.Code, calls []hookCall) []jen.Code {
	body := []jen.Code{first}
	if len(calls) == 0 {
		return append(body, jen.Return(jen.Id("errs")))
	}
	for i, c := range calls {
		call := c.render()
		if i == len(calls)-1 {
			body = append(body, jen.Return(jen.Append(jen.Id("errs"), call)))
		} else {
			body = append(body, jen.Id("errs").Op("=").Append(jen.Id("errs"), call))
		}
	}
	return body
}

// hooksDoc documents a Validate or ValidateUpdate method that runs lead, then calls.
func hooksDoc(method, lead string, calls []hookCall) string {
	if len(calls) == 0 {
		return fmt.Sprintf("%s %s; no hand-written validation is declared for the kind.", method, lead)
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.local + "." + c.name + c.note
	}
	return fmt.Sprintf("%s %s, then %s.", method, lead, strings.Join(names, ", then "))
}

// validate emits Validate and ValidateUpdate: the declarative validation generated from the
// versioned types' markers (runtime/validation.Declarative, in the request's version), then
// the hand-written hooks (hooks): the hub package's Validate<Kind> and Validate<Kind>Update
// when it declares them, then the group's validation package's, as Kubernetes' strategies
// run declarative and hand-written validation together.
func validate(f *jen.File, g *model.Group, r *resource, recv *jen.Statement) {
	kind := r.obj.Name.Name
	create, update := "Validate"+kind, "Validate"+kind+"Update"
	const lead = "runs the validation generated from the markers of the request's version"
	createHooks, updateHooks := hooks(g, r)
	createBody := hookBody(declarative(jen.Nil()), createHooks)
	updateBody := hookBody(declarative(jen.Id("old")), updateHooks)
	var createDoc, updateDoc string
	switch {
	case g.Validation != nil:
		createDoc, updateDoc = hooksDoc("Validate", lead, createHooks), hooksDoc("ValidateUpdate", lead, updateHooks)
	default:
		createDoc = fmt.Sprintf("Validate %s; the package %s declares no %s hook.", lead, r.hub.Name, create)
		updateDoc = fmt.Sprintf("ValidateUpdate %s; the package %s declares neither %s nor %s.", lead, r.hub.Name, update, create)
		if r.hub.HasFunc(create) {
			createDoc = fmt.Sprintf("Validate %s, then %s.%s.", lead, r.hub.Name, create)
			updateDoc = fmt.Sprintf("ValidateUpdate %s, then %s.%s (the package declares no %s).", lead, r.hub.Name, create, update)
		}
		if r.hub.HasFunc(update) {
			updateDoc = fmt.Sprintf("ValidateUpdate %s, then %s.%s.", lead, r.hub.Name, update)
		}
	}
	errorList := jen.Qual(fieldPkg, "ErrorList")
	recv = jen.Params(jen.Id("s").Id(r.strategyName()))
	f.Comment(createDoc)
	f.Func().Add(recv.Clone()).Id("Validate").Add(ctxObj()).Add(errorList.Clone()).Block(createBody...)
	f.Line()
	f.Comment(updateDoc)
	f.Func().Add(recv.Clone()).Id("ValidateUpdate").Add(ctxObjOld()).Add(errorList.Clone()).Block(updateBody...)
}

// statusStrategy emits <kind>StatusStrategy: the kind's strategy, except that an update
// changes only status.
func statusStrategy(f *jen.File, g *model.Group, r *resource) {
	name := r.statusStrategyName()
	f.Commentf("%s implements registry.Strategy for the status subresource of %s: an update", name, r.obj.Name.Name)
	f.Comment("changes status only. Everything else is the kind's strategy.")
	f.Type().Id(name).Struct(jen.Id(r.strategyName()))
	f.Line()
	f.Var().Id("_").Qual(registryPkg, "Strategy").Op("=").Id(name).Values()
	f.Line()
	body := []jen.Code{assertBoth(r)}
	for _, fld := range r.obj.Fields {
		if fld.Name == "Status" || fld.Name == "TypeMeta" || fld.Name == "ObjectMeta" {
			continue
		}
		body = append(body, jen.Id("newObj").Dot(fld.Name).Op("=").Id("oldObj").Dot(fld.Name))
	}
	body = append(body, jen.Qual(metav1Pkg, "ResetObjectMetaForStatus").Call(jen.Id("newObj"), jen.Id("oldObj")))
	f.Comment("PrepareForUpdate keeps everything of old but status: every other field, and the metadata a status")
	f.Comment("writer may not change (labels, annotations, finalizers, owner references, generation,")
	f.Comment("deletion timestamp), as Kubernetes' status strategies do with metav1.ResetObjectMetaForStatus.")
	f.Func().Params(jen.Id(name)).Id("PrepareForUpdate").Add(ctxObjOld()).Block(body...)
	var others []string
	for _, fld := range r.obj.Fields {
		if fld.Name != "Status" && fld.Name != "TypeMeta" && fld.Name != "ObjectMeta" {
			others = append(others, fld.Name)
		}
	}
	f.Line()
	resetFieldsFunc(f, g, r, name, others, statusResetMeta,
		"GetResetFields returns every field but status, and the metadata PrepareForUpdate keeps, in every version:",
		"a write of /status never owns them (server-side apply's reset fields).")
}

// statusResetMeta are the metadata fields metav1.ResetObjectMetaForStatus keeps that a
// client may set, by JSON name.
var statusResetMeta = []string{"labels", "annotations", "finalizers", "ownerReferences"}

// resetFieldsFunc emits GetResetFields (runtime/fieldmanager.ResetFieldsStrategy): per
// version serving the kind, the JSON names of the hub fields named goFields in that version's
// type, and metadata.<name> for each of meta.
func resetFieldsFunc(f *jen.File, g *model.Group, r *resource, strategy string, goFields, meta []string, doc ...string) {
	var entries []jen.Code
	for _, v := range g.Versions {
		typ := v.Package.Type(r.kind.Name)
		if v.Kind(r.kind.Name) == nil || typ == nil {
			continue
		}
		var paths []jen.Code
		for _, name := range goFields {
			if fld := typ.Field(name); fld != nil && fld.JSONName != "" && fld.JSONName != "-" {
				paths = append(paths, jen.Qual(fieldpathPkg, "MakePathOrDie").Call(jen.Lit(fld.JSONName)))
			}
		}
		for _, name := range meta {
			paths = append(paths, jen.Qual(fieldpathPkg, "MakePathOrDie").Call(jen.Lit("metadata"), jen.Lit(name)))
		}
		gv := v.Name
		if g.Name != "" {
			gv = g.Name + "/" + v.Name
		}
		entries = append(entries, jen.Line().Lit(gv).Op(":").Qual(fieldpathPkg, "NewSet").Call(paths...))
	}
	set := jen.Map(jen.Qual(fieldpathPkg, "APIVersion")).Op("*").Qual(fieldpathPkg, "Set")
	f.Var().Id("_").Qual(fieldmanagerPkg, "ResetFieldsStrategy").Op("=").Id(strategy).Values()
	f.Line()
	for _, line := range doc {
		f.Comment(line)
	}
	f.Func().Params(jen.Id(strategy)).Id("GetResetFields").Params().Add(set.Clone()).Block(
		jen.Return(set.Clone().Values(append(entries, jen.Line())...)),
	)
}

// statusField returns the object's Status field when the kind has a status subresource.
func statusField(r *resource) *model.Field {
	if !r.kind.StatusSubresource {
		return nil
	}
	return r.obj.Field("Status")
}

// zero renders the zero value of a field type.
func zero(t *model.TypeRef) jen.Code {
	if t.Kind == model.Named && t.Named.Kind == model.Struct {
		return emit.Qual(t.Named).Values()
	}
	if t.Kind == model.Pointer || t.Kind == model.Slice || t.Kind == model.Map || t.Kind == model.Interface {
		return jen.Nil()
	}
	return jen.Op("*").New(emit.TypeRef(t))
}

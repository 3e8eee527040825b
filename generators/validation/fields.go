package validation

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	equalitygen "github.com/apigen-dev/apigen/generators/equality"
	"github.com/apigen-dev/apigen/generators/model"
)

// ctxArgs are the leading arguments of every validation call: ctx, op, fldPath, obj, oldObj.
func ctxArgs(extra ...jen.Code) []jen.Code {
	return append([]jen.Code{jen.Id("ctx"), jen.Id("op"), jen.Id("fldPath"), jen.Id("obj"), jen.Id("oldObj")}, extra...)
}

// appendErrs is `errs = append(errs, call...)`.
func appendErrs(call jen.Code) jen.Code {
	return jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Add(call).Op("..."))
}

// typeFunc emits Validate_<Type>: the type-level rules (and, for a named scalar type, its
// constraints), then one block per field that needs checks.
func (g *pkgGen) typeFunc(t *model.Type) jen.Code {
	name := t.Name.Name
	body := []jen.Code{jen.If(jen.Id("obj").Op("==").Nil()).Block(jen.Return(jen.Nil()))}
	if t.Kind == model.Basic {
		ref := &model.TypeRef{Kind: model.Named, Named: t}
		body = append(body, g.scalarChecks(&t.Markers.Validation, ref, name, t.Pos)...)
		if df := t.DefinedFrom; g.inherits(t, map[*model.Type]bool{}) {
			// The constraints of the type t is defined from (a pointer conversion: the
			// underlying types are identical).
			conv := func(v string) jen.Code { return jen.Parens(jen.Op("*").Add(emit.Qual(df))).Call(jen.Id(v)) }
			body = append(body, appendErrs(jen.Id(g.funcName(df)).Call(jen.Id("ctx"), jen.Id("op"), jen.Id("fldPath"), conv("obj"), conv("oldObj"))))
		}
	}
	for i := range t.Markers.Validation.Rules {
		rule := g.addRule(&t.Markers.Validation.Rules[i], &model.TypeRef{Kind: model.Named, Named: t}, name)
		body = append(body, appendErrs(ruleCall(rule, jen.Id("obj"), jen.Id("oldObj"), false)))
	}
	if t.Kind == model.Struct {
		body = append(body, g.unionChecks(t)...)
	}
	for _, f := range t.Fields {
		if c := g.fieldBlock(t, f); c != nil {
			body = append(body, c)
		}
	}
	body = append(body, jen.Return(jen.Id("errs")))
	return jen.Commentf("Validate_%s validates obj, a %s at fldPath, against the validation markers of its type", name, name).Line().
		Comment("and of the types it holds; oldObj is the stored value on update, nil on create.").Line().
		Func().Id(g.funcName(t)).Params(
		jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("op").Qual(operationPkg, "Operation"),
		jen.Id("fldPath").Op("*").Qual(fieldPkg, "Path"), jen.List(jen.Id("obj"), jen.Id("oldObj")).Op("*").Add(emit.Qual(t)),
	).Params(jen.Id("errs").Qual(fieldPkg, "ErrorList")).Block(body...)
}

// fieldBlock emits the validation of one field of t, or nil when it needs none.
func (g *pkgGen) fieldBlock(t *model.Type, f *model.Field) jen.Code {
	if f.JSONName == "-" || !(fieldHasChecks(f) || g.refNeeds(f.Type, map[*model.Type]bool{})) {
		return nil
	}
	owner := t.Name.Name + "." + f.Name
	if f.Embedded || f.Inline {
		if f.Type.Kind != model.Named || !g.hasFunc(f.Type.Named) {
			return nil
		}
		old := jen.Qual(safePkg, "Field").Call(jen.Id("oldObj"), jen.Func().Params(jen.Id("oldObj").Op("*").Add(emit.Qual(t))).
			Op("*").Add(emit.Qual(f.Type.Named)).Block(jen.Return(jen.Op("&").Id("oldObj").Dot(f.Name))))
		return appendErrs(jen.Id(g.funcName(f.Type.Named)).Call(jen.Id("ctx"), jen.Id("op"), jen.Id("fldPath"),
			jen.Op("&").Id("obj").Dot(f.Name), old))
	}
	// The closure's obj and oldObj are the field itself for pointers, slices and maps, and a
	// pointer to it otherwise, as validation-gen passes them.
	byValue := f.Type.Kind == model.Pointer || f.Type.Kind == model.Slice || f.Type.Kind == model.Map
	paramType := jen.Op("*").Add(emit.TypeRef(f.Type))
	arg := jen.Op("&").Id("obj").Dot(f.Name)
	oldRet := jen.Op("&").Id("oldObj").Dot(f.Name)
	if byValue {
		paramType, arg, oldRet = emit.TypeRef(f.Type).(*jen.Statement), jen.Id("obj").Dot(f.Name), jen.Id("oldObj").Dot(f.Name)
	}
	old := jen.Qual(safePkg, "Field").Call(jen.Id("oldObj"),
		jen.Func().Params(jen.Id("oldObj").Op("*").Add(emit.Qual(t))).Add(paramType.Clone()).Block(jen.Return(oldRet)))
	// Unchanged is equality.Semantic.DeepEqual(obj, oldObj), generated without reflection
	// where generators/equality can.
	unchanged := equalitygen.FieldEqual(f.Type, "obj", "oldObj")
	if unchanged == nil {
		unchanged = jen.Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(jen.Id("obj"), jen.Id("oldObj"))
	}
	var body []jen.Code
	if f.JSONName == "status" && g.statusDroppedOnCreate(t) {
		body = append(body,
			jen.Comment("A create's status is not the client's to write (PrepareForCreate clears it for the status"),
			jen.Comment("subresource, the server computes a review's), as the API server drops a custom resource's:"),
			jen.Comment("it is not validated on create."),
			jen.If(jen.Id("op").Dot("Type").Op("==").Qual(operationPkg, "Create")).Block(jen.Return(jen.Nil())))
	}
	body = append(body,
		jen.Comment("Ratcheting: an unchanged value is not validated again, as in Kubernetes."),
		jen.If(jen.Id("op").Dot("Type").Op("==").Qual(operationPkg, "Update").Op("&&").Add(unchanged)).Block(jen.Return(jen.Nil())),
	)
	body = append(body, g.transitionChecks(f, owner)...)
	body = append(body, g.presence(f)...)
	body = append(body, g.valueChecks(f, owner)...)
	body = append(body, jen.Return(jen.Id("errs")))
	closure := jen.Func().Params(jen.Id("fldPath").Op("*").Qual(fieldPkg, "Path"), jen.List(jen.Id("obj"), jen.Id("oldObj")).Add(paramType)).
		Params(jen.Id("errs").Qual(fieldPkg, "ErrorList")).Block(body...)
	return jen.Commentf("field %s", owner).Line().
		Add(appendErrs(closure.Call(jen.Id("fldPath").Dot("Child").Call(jen.Lit(f.JSONName)), arg, old)))
}

// statusDroppedOnCreate reports whether t is a root kind of the version whose status a create
// does not write: one with a status subresource, or a create-only kind (a review), whose
// status the server computes.
func (g *pkgGen) statusDroppedOnCreate(t *model.Type) bool {
	for _, k := range g.version.Kinds {
		if k.Type == t && (k.StatusSubresource || k.CreateOnly) {
			return true
		}
	}
	return false
}

// presence emits the check of whether the field's value is there, as the API server's CRD
// validation judges it (Field.Required: the JSON key is present and not null), and the early
// return of an absent value, which is not validated further:
//
//   - a pointer, slice or map is absent when nil (left out, or null);
//   - a scalar or struct is absent when zero and its key is not in the request's document
//     (validation.KeyPresent: "" sent is present, and validated; without a document, what
//     encoding/json writes for the zero value); a struct (or a named list or map) whose key
//     the request left out is absent whatever its value, as defaulting may have set some of
//     its fields where the API server sets none under an absent object; an optional struct
//     left out that encoding/json still writes (not omitzero) is validated as it will be
//     stored, its fields' presence judged without the document, where the API server would
//     store no key;
//   - +k8s:required (NonZero) keeps validation-gen's meaning: a zero value is Required value;
//   - +k8s:forbidden: a set value is an error.
func (g *pkgGen) presence(f *model.Field) []jen.Code {
	kind := valueKind(f.Type)
	stop := func(check jen.Code) []jen.Code {
		return []jen.Code{jen.If(jen.Id("e").Op(":=").Add(check), jen.Len(jen.Id("e")).Op("!=").Lit(0)).Block(
			jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Id("e").Op("...")), jen.Return())}
	}
	switch {
	case f.Markers.Validation.Forbidden && kind != "Struct":
		return stop(jen.Qual(validatePkg, "Forbidden"+kind).Call(ctxArgs()...))
	case f.Markers.NonZero && kind != "Struct":
		return stop(jen.Qual(validatePkg, "Required"+kind).Call(ctxArgs()...))
	}
	var absent jen.Code
	switch {
	case kind == "Pointer" || kind == "Slice" || kind == "Map":
		absent = jen.Id("obj").Op("==").Nil()
	case kind == "Struct":
		// A struct the request left out is absent even when defaulting filled some of its
		// fields (the API server applies no defaults under an absent object): the document
		// decides; without one, what encoding/json writes for the value.
		var written jen.Code = jen.True()
		if !writtenWhenZero(f) {
			written = jen.Op("!").Qual(validationPkg, "IsZero").Call(jen.Id("obj"))
		}
		absent = jen.Op("!").Qual(validationPkg, "KeyPresent").Call(jen.Id("ctx"), jen.Id("fldPath"), written)
	default:
		absent = jen.Add(zeroTest(f.Type)).Op("&&").Op("!").Qual(validationPkg, "KeyPresent").Call(
			jen.Id("ctx"), jen.Id("fldPath"), jen.Lit(writtenWhenZero(f)))
	}
	if f.Required {
		return []jen.Code{jen.If(absent).Block(
			jen.Return(jen.Append(jen.Id("errs"), jen.Qual(fieldPkg, "Required").Call(jen.Id("fldPath"), jen.Lit("")))))}
	}
	if kind == "Struct" && writtenWhenZero(f) {
		// An optional struct the request left out is still stored (a Go object holds it, and
		// encoding/json writes it): it is validated as stored, its fields' presence judged by
		// what its JSON writes, so that nothing stored breaks the schema.
		return []jen.Code{
			jen.Id("ctx").Op(":=").Id("ctx"),
			jen.If(absent).Block(jen.Id("ctx").Op("=").Qual(validationPkg, "WithoutDocument").Call(jen.Id("ctx"))),
		}
	}
	return []jen.Code{jen.If(absent).Block(jen.Return().Comment("do not proceed: the optional value is absent"))}
}

// valueKind names how the value of a field of type ref is held: "Pointer", "Slice", "Map" (the
// closure's obj is the value), "Value" (a scalar, obj *T) or "Struct" (anything else held as
// obj *T: a struct, a named slice or map, an array).
func valueKind(ref *model.TypeRef) string {
	switch {
	case ref.Kind == model.Pointer:
		return "Pointer"
	case ref.Kind == model.Slice:
		return "Slice"
	case ref.Kind == model.Map:
		return "Map"
	case basicOf(ref) != "":
		return "Value"
	}
	return "Struct"
}

// zeroTest renders whether *obj, a field of type ref held as obj *T, is zero.
func zeroTest(ref *model.TypeRef) *jen.Statement {
	switch b := basicOf(ref); {
	case b == "string":
		return jen.Op("*").Id("obj").Op("==").Lit("")
	case b == "bool":
		return jen.Op("!").Op("*").Id("obj")
	case integerBasics[b] || floatBasics[b]:
		return jen.Op("*").Id("obj").Op("==").Lit(0)
	}
	return jen.Qual(validationPkg, "IsZero").Call(jen.Id("obj"))
}

// zeroAsNull are the types whose JSON encoding of the zero value is null (metav1.Time's
// MarshalJSON), which the API server prunes as if the key were not there.
var zeroAsNull = map[model.TypeName]bool{
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Time"}:      true,
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "MicroTime"}: true,
}

// writtenWhenZero reports whether encoding/json writes the key of field f, held by value, when
// its value is zero, with a value other than null: what a stored object shows, and so what
// validation.KeyPresent answers without a request document. omitempty leaves out zero
// scalars (not structs), omitzero every zero value; nil slices and maps are null.
func writtenWhenZero(f *model.Field) bool {
	ref := f.Type
	switch {
	case f.OmitZero:
		return false
	case basicOf(ref) != "":
		return !f.OmitEmpty
	case ref.Kind == model.Named && zeroAsNull[ref.Named.Name]:
		return false
	case ref.Kind == model.Named && (ref.Named.Kind == model.Slice || ref.Named.Kind == model.Map):
		return false
	}
	return true
}

// valueChecks emits the field's constraints, the validation of the types it holds and its
// CEL rules.
func (g *pkgGen) valueChecks(f *model.Field, owner string) []jen.Code {
	ref := f.Type
	var out []jen.Code
	switch ref.Kind {
	case model.Slice:
		out = append(out, g.sliceChecks(f, owner)...)
	case model.Map:
		out = append(out, g.mapChecks(f, owner)...)
	default:
		if ref.Kind == model.Pointer {
			ref = ref.Elem
		}
		out = append(out, g.scalarChecks(&f.Markers.Validation, ref, owner, f.Pos)...)
		out = append(out, g.byteAndNEQChecks(&f.Markers.Validation, ref, owner, f.Pos)...)
		if ref.Kind == model.Named && g.hasFunc(ref.Named) {
			out = append(out, appendErrs(jen.Id(g.funcName(ref.Named)).Call(ctxArgs()...)))
		}
	}
	collection := f.Type.Kind == model.Slice || f.Type.Kind == model.Map
	for i := range f.Markers.Validation.Rules {
		rule := g.addRule(&f.Markers.Validation.Rules[i], f.Type, owner)
		self, old := jen.Id("obj"), jen.Id("oldObj")
		if collection {
			self, old = jen.Op("&").Id("obj"), jen.Op("&").Id("oldObj")
		}
		out = append(out, appendErrs(ruleCall(rule, self, old, f.OmitEmpty)))
	}
	return out
}

// sliceChecks emits the item-count, uniqueness and per-item checks of a slice field.
func (g *pkgGen) sliceChecks(f *model.Field, owner string) []jen.Code {
	v := &f.Markers.Validation
	var out []jen.Code
	if v.MinItems != nil {
		out = append(out, appendErrs(jen.Qual(validationPkg, "MinItems").Call(ctxArgs(jen.Lit(int(*v.MinItems)))...)))
	}
	if v.MaxItems != nil {
		out = append(out, appendErrs(jen.Qual(validationPkg, "MaxItems").Call(ctxArgs(jen.Lit(int(*v.MaxItems)))...)))
	}
	elem := f.Type.Elem
	var match, equiv jen.Code = jen.Nil(), jen.Nil()
	switch {
	case (f.Markers.ListType == "map" || v.Unique == "map") && len(f.Markers.ListMapKey) > 0:
		if m := g.keyMatch(f, owner); m != nil {
			// Items are correlated with the old list by key, so unchanged items are not
			// validated again (ratcheting). Uniqueness is checked as a CRD's list-type map.
			match, equiv = m, semanticEqual(elem)
			keys := make([]jen.Code, len(f.Markers.ListMapKey))
			for i, k := range f.Markers.ListMapKey {
				keys[i] = jen.Lit(k)
			}
			out = append(out, appendErrs(jen.Qual(validationPkg, "UniqueMapKeys").Call(ctxArgs(keys...)...)))
		}
	case v.Unique == "map":
		g.diag(f.Pos, "+k8s:unique=map on %s needs +listMapKey (or +k8s:listMapKey) naming the key fields", owner)
	case f.Markers.ListType == "set" || v.UniqueItems || v.Unique == "set":
		// Checked as a CRD's list-type set: items compared as JSON.
		out = append(out, appendErrs(jen.Qual(validationPkg, "UniqueSet").Call(ctxArgs()...)))
	}
	if each := g.elemValidator(v.Items, elem, owner+"[*]", f.Pos); each != nil {
		eq := equiv
		if basicOf(elem) != "" {
			eq = jen.Qual(validatePkg, "DirectEqual").Types(emit.TypeRef(elem))
		}
		out = append(out, appendErrs(jen.Qual(validatePkg, "EachValSliceVal").Call(ctxArgs(match, eq, each)...)))
	}
	switch {
	case elem.Kind == model.Named && g.hasFunc(elem.Named):
		out = append(out, appendErrs(jen.Qual(validatePkg, "EachValSliceVal").Call(
			ctxArgs(match, equiv, jen.Id(g.funcName(elem.Named)))...)))
	case elem.Kind == model.Pointer && elem.Elem.Kind == model.Named && g.hasFunc(elem.Elem.Named):
		// Items behind pointers: nil items are skipped, as validation-gen's EachPtrSliceVal.
		out = append(out, appendErrs(jen.Qual(validatePkg, "EachPtrSliceVal").Call(
			ctxArgs(jen.Nil(), jen.Nil(), jen.Id(g.funcName(elem.Elem.Named)))...)))
	}
	return out
}

// keyMatch renders the function matching two items of a +listType=map list by their keys,
// or records a diagnostic when a key is not a field of the items.
func (g *pkgGen) keyMatch(f *model.Field, owner string) jen.Code {
	elem := f.Type.Elem
	if elem.Kind != model.Named || elem.Named.Kind != model.Struct {
		g.diag(f.Pos, "+listType=map on %s needs a list of structs, not %s", owner, f.Type)
		return nil
	}
	var conds []jen.Code
	for _, key := range f.Markers.ListMapKey {
		kf := jsonField(elem.Named, key)
		if kf == nil {
			g.diag(f.Pos, "+listMapKey=%s on %s names no field of %s", key, owner, elem.Named.Name.Name)
			return nil
		}
		if len(conds) > 0 {
			conds = append(conds, jen.Op("&&"))
		}
		conds = append(conds, jen.Id("a").Dot(kf.Name).Op("==").Id("b").Dot(kf.Name))
	}
	ptr := jen.Op("*").Add(emit.TypeRef(elem))
	return jen.Func().Params(jen.List(jen.Id("a"), jen.Id("b")).Add(ptr)).Bool().Block(jen.Return(jen.Add(conds...)))
}

// jsonField returns the field of struct t whose JSON name is name.
func jsonField(t *model.Type, name string) *model.Field {
	for _, f := range t.Fields {
		if f.JSONName == name {
			return f
		}
	}
	return nil
}

// mapChecks emits the property-count and per-value checks of a map field.
func (g *pkgGen) mapChecks(f *model.Field, owner string) []jen.Code {
	v := &f.Markers.Validation
	var out []jen.Code
	if v.MinProperties != nil {
		out = append(out, appendErrs(jen.Qual(validationPkg, "MinProperties").Call(ctxArgs(jen.Lit(int(*v.MinProperties)))...)))
	}
	if v.MaxProperties != nil {
		out = append(out, appendErrs(jen.Qual(validationPkg, "MaxProperties").Call(ctxArgs(jen.Lit(int(*v.MaxProperties)))...)))
	}
	elem := f.Type.Elem
	if each := g.elemValidator(v.Items, elem, owner+"[*]", f.Pos); each != nil && isString(f.Type.Key) {
		out = append(out, appendErrs(jen.Qual(validatePkg, "EachMapVal").Call(ctxArgs(semanticEqual(elem), each)...)))
	}
	if each := g.elemValidator(v.Keys, f.Type.Key, owner+"[key]", f.Pos); each != nil && isString(f.Type.Key) {
		out = append(out, appendErrs(jen.Qual(validatePkg, "EachMapKey").Call(ctxArgs(each)...)))
	}
	if elem.Kind == model.Named && g.hasFunc(elem.Named) && isString(f.Type.Key) {
		out = append(out, appendErrs(jen.Qual(validatePkg, "EachMapVal").Call(ctxArgs(
			semanticEqual(elem),
			jen.Id(g.funcName(elem.Named)))...)))
	}
	return out
}

// semanticEqual is the MatchFunc[*elem] comparing two items as equality.Semantic.DeepEqual:
// the generated SemanticEqual_T of a local type (generators/equality), else
// validate.SemanticDeepEqual.
func semanticEqual(elem *model.TypeRef) jen.Code {
	if elem.Kind == model.Named && equalitygen.HasFunc(elem.Named) {
		return jen.Qual(elem.Named.Name.Package, equalitygen.FuncName(elem.Named))
	}
	return jen.Qual(validatePkg, "SemanticDeepEqual").Types(jen.Op("*").Add(emit.TypeRef(elem)))
}

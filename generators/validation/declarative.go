package validation

import (
	"encoding/json"
	"math"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// transitionChecks emits +k8s:immutable and +k8s:update of a field, as validation-gen:
// validate.Immutable, and validate.UpdatePointer, UpdateValueByCompare, UpdateStruct or
// ValSliceUpdate with the constraints. They come after the ratcheting return (so they only
// see changed values) and before the presence check (so clearing a field is seen).
func (g *pkgGen) transitionChecks(f *model.Field, owner string) []jen.Code {
	v := &f.Markers.Validation
	var out []jen.Code
	if v.Immutable {
		out = append(out, appendErrs(jen.Qual(validatePkg, "Immutable").Call(ctxArgs()...)))
	}
	if len(v.Update) == 0 {
		return out
	}
	items := false
	constraints := make([]jen.Code, len(v.Update))
	for i, c := range v.Update {
		constraints[i] = jen.Qual(validatePkg, c)
		items = items || c == "NoAddItem" || c == "NoRemoveItem"
	}
	ref := f.Type
	switch {
	case ref.Kind == model.Slice:
		match := g.itemMatch(f, owner)
		if match == nil {
			return out
		}
		out = append(out, appendErrs(jen.Qual(validatePkg, "ValSliceUpdate").Call(ctxArgs(append([]jen.Code{match}, constraints...)...)...)))
	case items:
		g.diag(f.Pos, "+k8s:update=NoAddItem and NoRemoveItem on %s need a list field, not %s", owner, ref)
	case ref.Kind == model.Pointer:
		out = append(out, appendErrs(jen.Qual(validatePkg, "UpdatePointer").Call(ctxArgs(constraints...)...)))
	case ref.Kind == model.Map:
		g.diag(f.Pos, "+k8s:update on the map %s is not supported (as in validation-gen): use +k8s:immutable", owner)
	case ref.Kind == model.Named && ref.Named.Kind == model.Struct:
		for _, c := range v.Update {
			if c != "NoModify" {
				g.diag(f.Pos, "+k8s:update=%s on %s: a struct value is always set; only NoModify applies", c, owner)
			}
		}
		out = append(out, appendErrs(jen.Qual(validatePkg, "UpdateStruct").Call(ctxArgs(constraints...)...)))
	case basicOf(ref) != "":
		out = append(out, appendErrs(jen.Qual(validatePkg, "UpdateValueByCompare").Call(ctxArgs(constraints...)...)))
	default:
		out = append(out, appendErrs(jen.Qual(validatePkg, "UpdateValueByReflect").Call(ctxArgs(constraints...)...)))
	}
	return out
}

// itemMatch is the MatchFunc correlating the items of list field f: by key for a list-map,
// by value for comparable items, else semantically; nil after a diagnostic.
func (g *pkgGen) itemMatch(f *model.Field, owner string) jen.Code {
	elem := f.Type.Elem
	if (f.Markers.ListType == "map" || f.Markers.Validation.Unique == "map") && len(f.Markers.ListMapKey) > 0 {
		return g.keyMatch(f, owner)
	}
	if basicOf(elem) != "" {
		return jen.Qual(validatePkg, "DirectEqual").Types(emit.TypeRef(elem))
	}
	return semanticEqual(elem)
}

// byteAndNEQChecks emits +k8s:maxBytes and +k8s:neq of a scalar held as obj *T.
func (g *pkgGen) byteAndNEQChecks(v *model.Validation, ref *model.TypeRef, owner string, pos model.Position) []jen.Code {
	var out []jen.Code
	if v.MaxBytes != nil {
		if !isString(ref) {
			g.diag(pos, "+k8s:maxBytes on %s needs a string, not %s", owner, ref)
		} else {
			out = append(out, appendErrs(jen.Qual(validatePkg, "MaxBytes").Call(ctxArgs(jen.Lit(int(*v.MaxBytes)))...)))
		}
	}
	for _, raw := range v.NEQ {
		var x any
		if err := json.Unmarshal([]byte(raw), &x); err != nil {
			g.diag(pos, "+k8s:neq value %s of %s is not valid JSON: %v", raw, owner, err)
			continue
		}
		var lit jen.Code
		switch x := x.(type) {
		case string:
			if isString(ref) {
				lit = jen.Lit(x)
			}
		case float64:
			if isInteger(ref) && x == math.Trunc(x) {
				lit = jen.Lit(int(x))
			} else if isNumber(ref) && !isInteger(ref) {
				lit = jen.Lit(x)
			}
		case bool:
			if basicOf(ref) == "bool" {
				lit = jen.Lit(x)
			}
		}
		if lit == nil {
			g.diag(pos, "+k8s:neq value %s of %s does not fit %s", raw, owner, ref)
			continue
		}
		out = append(out, appendErrs(jen.Qual(validatePkg, "NEQ").Call(ctxArgs(lit)...)))
	}
	return out
}

// hasScalarChecks reports whether v asks for checks of a scalar value.
func hasScalarChecks(v *model.Validation) bool {
	return v != nil && (hasConstraints(v) || v.MaxBytes != nil || len(v.NEQ) > 0)
}

// elemValidator returns the ValidateFunc[*elem] applying v's scalar checks to an item, map
// value or map key, or nil when v asks for none.
func (g *pkgGen) elemValidator(v *model.Validation, elem *model.TypeRef, owner string, pos model.Position) jen.Code {
	if !hasScalarChecks(v) {
		return nil
	}
	body := append(g.scalarChecks(v, elem, owner, pos), g.byteAndNEQChecks(v, elem, owner, pos)...)
	if len(body) == 0 {
		return nil
	}
	return jen.Func().Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("op").Qual(operationPkg, "Operation"),
		jen.Id("fldPath").Op("*").Qual(fieldPkg, "Path"), jen.List(jen.Id("obj"), jen.Id("oldObj")).Op("*").Add(emit.TypeRef(elem))).
		Params(jen.Id("errs").Qual(fieldPkg, "ErrorList")).Block(append(body, jen.Return(jen.Id("errs")))...)
}

// unionChecks emits the +k8s:unionMember unions of struct t (with their
// +k8s:unionDiscriminator), as validation-gen: validate.Union or validate.DiscriminatedUnion
// over a package-level membership, with one "is set" extractor per member.
func (g *pkgGen) unionChecks(t *model.Type) []jen.Code {
	type union struct {
		members []*model.Field
		disc    *model.Field
	}
	unions := map[string]*union{}
	get := func(name string) *union {
		if unions[name] == nil {
			unions[name] = &union{}
		}
		return unions[name]
	}
	for _, f := range t.Fields {
		if m := f.Markers.Validation.UnionMember; m != nil {
			get(m.Union).members = append(get(m.Union).members, f)
		}
		if d := f.Markers.Validation.UnionDiscriminator; d != nil {
			get(*d).disc = f
		}
	}
	names := make([]string, 0, len(unions))
	for n := range unions {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []jen.Code
	for _, n := range names {
		if c := g.unionCheck(t, n, unions[n].members, unions[n].disc); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// unionCheck emits one union of t.
func (g *pkgGen) unionCheck(t *model.Type, name string, members []*model.Field, disc *model.Field) jen.Code {
	owner := t.Name.Name
	if len(members) == 0 {
		g.diag(disc.Pos, "+k8s:unionDiscriminator on %s.%s names union %q, which has no +k8s:unionMember", owner, disc.Name, name)
		return nil
	}
	ptr := jen.Op("*").Add(emit.Qual(t))
	var entries, isSet []jen.Code
	for _, f := range members {
		cond := isSetCond(f)
		if cond == nil {
			g.diag(f.Pos, "+k8s:unionMember on %s.%s needs a pointer, slice, map or scalar field (as in validation-gen), not %s", owner, f.Name, f.Type)
			return nil
		}
		member := f.Name
		if m := f.Markers.Validation.UnionMember; m.MemberName != "" {
			member = m.MemberName
		}
		if disc != nil {
			entries = append(entries, jen.Qual(validatePkg, "NewDiscriminatedUnionMember").Call(jen.Lit(f.JSONName), jen.Lit(member)))
		} else {
			entries = append(entries, jen.Qual(validatePkg, "NewUnionMember").Call(jen.Lit(f.JSONName)))
		}
		isSet = append(isSet, jen.Func().Params(jen.Id("obj").Add(ptr.Clone())).Bool().Block(
			jen.Return(jen.Id("obj").Op("!=").Nil().Op("&&").Add(cond))))
	}
	varName := g.varName("unionMembershipFor" + owner + identifier(name))
	membership := jen.Qual(validatePkg, "NewUnionMembership").Call(entries...)
	fn := "Union"
	if members[0].Markers.Validation.UnionMember.ZeroOrOne {
		fn = "ZeroOrOneOfUnion" // +k8s:zeroOrOneOfMember
	}
	call := jen.Qual(validatePkg, fn).Call(append([]jen.Code{jen.Id("ctx"), jen.Id("op"), jen.Id("fldPath"), jen.Id("obj"), jen.Id("oldObj"), jen.Id(varName)}, isSet...)...)
	if disc != nil {
		if !isString(disc.Type) {
			g.diag(disc.Pos, "+k8s:unionDiscriminator on %s.%s needs a string field, not %s", owner, disc.Name, disc.Type)
			return nil
		}
		membership = jen.Qual(validatePkg, "NewDiscriminatedUnionMembership").Call(append([]jen.Code{jen.Lit(disc.JSONName)}, entries...)...)
		extract := jen.Func().Params(jen.Id("obj").Add(ptr.Clone())).Add(emit.TypeRef(disc.Type)).Block(
			jen.If(jen.Id("obj").Op("==").Nil()).Block(jen.Return(jen.Lit(""))), jen.Return(jen.Id("obj").Dot(disc.Name)))
		call = jen.Qual(validatePkg, "DiscriminatedUnion").Call(append([]jen.Code{jen.Id("ctx"), jen.Id("op"), jen.Id("fldPath"), jen.Id("obj"), jen.Id("oldObj"), jen.Id(varName), extract}, isSet...)...)
	}
	g.decls = append(g.decls, jen.Commentf("%s are the members of the %s union of %s.", varName, unionName(name), owner).Line().
		Var().Id(varName).Op("=").Add(membership))
	return appendErrs(call)
}

// unionName names a union in comments.
func unionName(name string) string {
	if name == "" {
		return "unnamed"
	}
	return "\"" + name + "\""
}

// isSetCond is validation-gen's "member is set" test of field f of obj: non-nil, non-empty
// or non-zero; nil for a struct value, which is always set.
func isSetCond(f *model.Field) jen.Code {
	x := jen.Id("obj").Dot(f.Name)
	switch f.Type.Kind {
	case model.Pointer:
		return x.Op("!=").Nil()
	case model.Slice, model.Map:
		return jen.Len(x).Op("!=").Lit(0)
	}
	switch b := basicOf(f.Type); {
	case b == "string":
		return x.Op("!=").Lit("")
	case b == "bool":
		return x
	case b != "":
		return x.Op("!=").Lit(0)
	}
	return nil
}

// hasUnion reports whether a field of t is a union member.
func hasUnion(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.Markers.Validation.UnionMember != nil || f.Markers.Validation.UnionDiscriminator != nil {
			return true
		}
	}
	return false
}

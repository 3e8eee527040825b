package validation

import (
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// integerBasics and floatBasics are the Go basic types JSON encodes as integers and numbers.
var (
	integerBasics = map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
		"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "byte": true, "rune": true}
	floatBasics = map[string]bool{"float32": true, "float64": true}
)

// basicOf returns the basic type name ref stands for: the basic itself, or the underlying
// basic of a named non-struct type; "" otherwise.
func basicOf(ref *model.TypeRef) string {
	switch ref.Kind {
	case model.Basic:
		return ref.Basic
	case model.Named:
		if t := ref.Named; t.Kind == model.Basic && t.Underlying != nil {
			return basicOf(t.Underlying)
		}
	}
	return ""
}

func isInteger(ref *model.TypeRef) bool { return integerBasics[basicOf(ref)] }
func isNumber(ref *model.TypeRef) bool  { return isInteger(ref) || floatBasics[basicOf(ref)] }
func isString(ref *model.TypeRef) bool  { return basicOf(ref) == "string" }

// hasConstraints reports whether v asks for any check besides CEL rules.
func hasConstraints(v *model.Validation) bool {
	return v.Minimum != nil || v.Maximum != nil || v.MinLength != nil || v.MaxLength != nil ||
		v.MinItems != nil || v.MaxItems != nil || v.UniqueItems || v.Pattern != "" || v.Format != "" ||
		len(v.Enum) > 0 || v.MultipleOf != nil || v.MinProperties != nil || v.MaxProperties != nil
}

// fieldHasChecks reports whether the field's own markers ask for a check.
func fieldHasChecks(f *model.Field) bool {
	m := &f.Markers
	v := &m.Validation
	return m.Required || hasConstraints(v) || len(v.Rules) > 0 ||
		m.ListType == "set" || (m.ListType == "map" && len(m.ListMapKey) > 0) ||
		v.Immutable || v.Forbidden || len(v.Update) > 0 || v.MaxBytes != nil || len(v.NEQ) > 0 || v.Unique != "" ||
		hasScalarChecks(v.Items) || hasScalarChecks(v.Keys)
}

// needs reports whether values of the local type t need a Validate_ function: t has type-level
// checks, or a field (at any depth through local types) has checks. stack breaks cycles;
// only positive results are memoized, as a negative one may depend on a cycle cut.
func (g *pkgGen) needs(t *model.Type, stack map[*model.Type]bool) bool {
	if t == nil || t.Name.Package != g.pkg.Path || stack[t] {
		return false
	}
	if g.memo[t] {
		return true
	}
	stack[t] = true
	defer delete(stack, t)
	has := len(t.Markers.Validation.Rules) > 0 || hasUnion(t)
	if t.Kind == model.Basic {
		has = has || hasConstraints(&t.Markers.Validation)
	}
	for _, f := range t.Fields {
		if has {
			break
		}
		if f.JSONName == "-" {
			continue
		}
		has = fieldHasChecks(f) || g.refNeeds(f.Type, stack)
	}
	if has {
		g.memo[t] = true
	}
	return has
}

// refNeeds reports whether a value of type ref needs validating because of the types it
// reaches (not the markers of the field holding it).
func (g *pkgGen) refNeeds(ref *model.TypeRef, stack map[*model.Type]bool) bool {
	switch ref.Kind {
	case model.Named:
		return g.needs(ref.Named, stack)
	case model.Pointer, model.Slice, model.Map:
		return g.refNeeds(ref.Elem, stack)
	}
	return false
}

// hasFunc reports whether the local type t gets a Validate_ function.
func (g *pkgGen) hasFunc(t *model.Type) bool { return g.needs(t, map[*model.Type]bool{}) }

// celType is the CEL shape of a value of type ref, for a rule's self.
func celType(ref *model.TypeRef) cel.Type {
	switch ref.Kind {
	case model.Pointer:
		return celType(ref.Elem)
	case model.Slice, model.Array:
		return cel.List
	case model.Map:
		if basicOf(ref.Key) == "string" {
			return cel.Object
		}
		return cel.Dyn
	case model.Named:
		return namedCELType(ref.Named)
	case model.Basic:
		return basicCELType(ref.Basic)
	}
	return cel.Dyn
}

func namedCELType(t *model.Type) cel.Type {
	if t.HasMethod("MarshalJSON") || t.HasMethod("OpenAPISchemaType") {
		return cel.Dyn // Quantity, Time, IntOrString, ...: their JSON shape is their own
	}
	if t.Kind == model.Struct {
		return cel.Object
	}
	if t.Underlying != nil {
		return celType(t.Underlying)
	}
	return cel.Dyn
}

func basicCELType(b string) cel.Type {
	switch {
	case b == "string":
		return cel.String
	case b == "bool":
		return cel.Bool
	case integerBasics[b]:
		return cel.Int
	case floatBasics[b]:
		return cel.Double
	}
	return cel.Dyn
}

// hasRules reports whether a value of the local type t holds a CEL rule anywhere: on t, on a
// field, or on a local type a field reaches. Such a kind's errors go through cel.Gate, as a
// CRD with x-kubernetes-validations is validated. seen breaks cycles.
func (g *pkgGen) hasRules(t *model.Type, seen map[*model.Type]bool) bool {
	if t == nil || t.Name.Package != g.pkg.Path || seen[t] {
		return false
	}
	seen[t] = true
	if len(t.Markers.Validation.Rules) > 0 {
		return true
	}
	for _, f := range t.Fields {
		if f.JSONName != "-" && (len(f.Markers.Validation.Rules) > 0 || g.refHasRules(f.Type, seen)) {
			return true
		}
	}
	return false
}

// refHasRules is hasRules of the local types ref reaches.
func (g *pkgGen) refHasRules(ref *model.TypeRef, seen map[*model.Type]bool) bool {
	switch ref.Kind {
	case model.Named:
		return g.hasRules(ref.Named, seen)
	case model.Pointer, model.Slice, model.Map:
		return g.refHasRules(ref.Elem, seen)
	}
	return false
}

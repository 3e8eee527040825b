package crd

import (
	"slices"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apigen-dev/apigen/generators/model"
)

// applyField applies the markers of field f of owner to its schema s, in controller-gen's
// order (its markers' ApplyPriority): +listType, then +default, then the value constraints,
// +nullable, the XValidation rules and +k8s:immutable's rule, +listMapKey, +mapType and
// +structType, and last the items:* constraints on the items. Markers the CRD cannot hold on
// the field's schema are errors at the field.
func (b *builder) applyField(owner *model.Type, f *model.Field, s *apiext.JSONSchemaProps) {
	m := f.Markers
	b.applyTopology(f.Pos, "field "+owner.Name.Name+"."+f.Name, m, s)
	if m.Default != nil {
		s.Default = &apiext.JSON{Raw: []byte(*m.Default)}
	}
	applyValidation(s, m.Validation)
	if m.NonZero {
		applyNonZero(s)
	}
	s.Nullable = s.Nullable || m.Validation.Nullable
	if m.Validation.Immutable {
		s.XValidations = append(s.XValidations, apiext.ValidationRule{Rule: "self == oldSelf", Message: "field is immutable"})
	}
	applyMapType(s, m)
	if items := m.Validation.Items; items != nil {
		applyItems(s, *items)
	}
}

// applyNonZero writes +k8s:required's constraint beyond the key's presence as controller-gen's
// K8sRequired does: a length, item count or property count of at least 1 (a reference to a
// type counts as an object), unless the field sets that bound itself. (apigen's own validation
// keeps validation-gen's meaning, a value that is not zero: a 0 or false is refused there,
// accepted by the CRD.)
func applyNonZero(s *apiext.JSONSchemaProps) {
	one := func(p **int64) {
		if *p == nil {
			*p = new(int64(1))
		}
	}
	switch {
	case s.Type == "string":
		one(&s.MinLength)
	case s.Type == "array":
		one(&s.MinItems)
	case s.Type == "object" || s.Ref != nil:
		one(&s.MinProperties)
	}
}

// applyType applies the markers of named type t to its schema s: those of applyField that
// controller-gen reads on a type (not +default, +nullable or +k8s:immutable), and +k8s:enum,
// which makes the type a string enumerating its constants, sorted.
func (b *builder) applyType(t *model.Type, s *apiext.JSONSchemaProps) {
	m := t.Markers
	b.applyTopology(t.Pos, "type "+t.Name.Name, m, s)
	v := m.Validation
	if m.EnumMarker == "k8s:enum" && len(t.EnumValues) > 0 && slices.Equal(v.Enum, t.EnumValues) {
		// +k8s:enum without +kubebuilder:validation:Enum: the loader copied the constants.
		v.Enum = nil
		s.Type = "string"
		s.Enum = jsonValues(sortedCopy(t.EnumValues))
	}
	applyValidation(s, v)
	applyMapType(s, m)
	if items := v.Items; items != nil {
		applyItems(s, *items)
	}
}

// applyTopology sets x-kubernetes-list-type and x-kubernetes-list-map-keys; what describes
// the declaration what (a field or type) in messages. A CRD accepts them on arrays only, and
// map keys only on a list of type map.
func (b *builder) applyTopology(pos model.Position, what string, m model.Markers, s *apiext.JSONSchemaProps) {
	if m.ListType == "" && len(m.ListMapKey) == 0 {
		return
	}
	if s.Type != "array" {
		b.errorf(pos, "+listType and +listMapKey on %s need a list: a CRD schema accepts them on arrays only", what)
		return
	}
	if m.ListType != "" {
		s.XListType = new(m.ListType)
	}
	if len(m.ListMapKey) > 0 {
		if m.ListType != "map" {
			b.errorf(pos, "+listMapKey on %s needs +listType=map: a CRD schema accepts map keys only on an associative list", what)
			return
		}
		for _, k := range m.ListMapKey {
			if !slices.Contains(s.XListMapKeys, k) {
				s.XListMapKeys = append(s.XListMapKeys, k)
			}
		}
	}
}

// applyMapType sets x-kubernetes-map-type from +mapType or +structType.
func applyMapType(s *apiext.JSONSchemaProps, m model.Markers) {
	if m.MapType != "" {
		s.XMapType = new(m.MapType)
	}
	if m.StructType != "" {
		s.XMapType = new(m.StructType)
	}
}

// applyValidation sets every value constraint of v on s, and appends v's CEL rules to
// x-kubernetes-validations (the XValidation rules, then those of AtMostOneOf, ExactlyOneOf
// and AtLeastOneOf, as controller-gen's priorities order them).
func applyValidation(s *apiext.JSONSchemaProps, v model.Validation) {
	if v.Maximum != nil {
		s.Maximum = new(*v.Maximum)
	}
	if v.Minimum != nil {
		s.Minimum = new(*v.Minimum)
	}
	s.ExclusiveMaximum = s.ExclusiveMaximum || v.ExclusiveMaximum
	s.ExclusiveMinimum = s.ExclusiveMinimum || v.ExclusiveMinimum
	if v.MultipleOf != nil {
		s.MultipleOf = new(*v.MultipleOf)
	}
	setInt(&s.MaxLength, v.MaxLength)
	setInt(&s.MinLength, v.MinLength)
	setInt(&s.MaxItems, v.MaxItems)
	setInt(&s.MinItems, v.MinItems)
	setInt(&s.MaxProperties, v.MaxProperties)
	setInt(&s.MinProperties, v.MinProperties)
	s.UniqueItems = s.UniqueItems || v.UniqueItems
	if v.Pattern != "" {
		s.Pattern = v.Pattern
	}
	if v.Format != "" {
		s.Format = v.Format
	}
	if len(v.Enum) > 0 {
		s.Enum = jsonValues(v.Enum)
	}
	for _, r := range v.Rules {
		s.XValidations = append(s.XValidations, validationRule(r))
	}
}

// setInt sets *dst to a copy of *v when v is set.
func setInt(dst **int64, v *int64) {
	if v != nil {
		*dst = new(*v)
	}
}

// applyItems applies the items:* constraints (+kubebuilder:validation:items:<Marker>, and
// apigen's +k8s:eachVal) to the item schema of a list, or to the value schema of a map. A
// reference to a named list type has no item schema yet: its constraints are not written
// (controller-gen rejects them there).
func applyItems(s *apiext.JSONSchemaProps, v model.Validation) {
	switch {
	case s.Items != nil && s.Items.Schema != nil:
		applyValidation(s.Items.Schema, v)
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		applyValidation(s.AdditionalProperties.Schema, v)
	}
}

// validationRule converts a CEL rule of the model; the default reason, FieldValueInvalid, is
// left out, as when the marker gives none.
func validationRule(r model.ValidationRule) apiext.ValidationRule {
	out := apiext.ValidationRule{Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression, FieldPath: r.FieldPath}
	if r.Reason != "" && r.Reason != string(apiext.FieldValueInvalid) {
		out.Reason = new(apiext.FieldValueErrorReason(r.Reason))
	}
	if r.OptionalOldSelf {
		out.OptionalOldSelf = new(true)
	}
	return out
}

// jsonValues converts JSON texts into schema values.
func jsonValues(values []string) []apiext.JSON {
	out := make([]apiext.JSON, len(values))
	for i, v := range values {
		out[i] = apiext.JSON{Raw: []byte(v)}
	}
	return out
}

func sortedCopy(values []string) []string {
	out := slices.Clone(values)
	slices.Sort(out)
	return out
}

package cel

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/operation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
)

// JSON wraps a subject (self or oldSelf) already in its JSON shape: map[string]any, []any, string, bool, int64 for
// integers and float64 for numbers, as a custom resource's generic values are once typed by their schema.
// Validate binds its Value without the conversion it applies to Go values; Value must not be nil.
type JSON struct {
	// Value is the JSON-shaped value.
	Value any
	// Schema is Value's OpenAPI schema, or nil. Without one, Value is bound as it is (objects are maps of their
	// JSON keys). With one, Value is bound as kube-apiserver binds a custom resource's values to CEL
	// (k8s.io/apiserver/pkg/cel/common.UnstructuredToVal, the reference, used as it is): an object with properties
	// has its property names escaped where they are not CEL identifiers (self.__namespace__ for "namespace",
	// self.a__dash__b for "a-b", as k8s.io/apiserver/pkg/cel.Escape) and a null property reads as absent; lists of
	// x-kubernetes-list-type set or map compare equal whatever their order; strings of format date-time and date
	// are timestamps, duration durations and byte bytes; an embedded resource (and the root, given
	// Schema.WithTypeAndObjectMeta()) shows only apiVersion, kind and metadata's name and generateName. A failed
	// rule then reports no value for an object or array (field.OmitValueType) and the value itself otherwise, and
	// an evaluation error reports Schema.Type() ("" for x-kubernetes-int-or-string), as apiextensions' validator.
	Schema common.Schema
}

// UsesOldSelf reports whether the rule is a transition rule: one that refers to oldSelf.
func (r *Rule) UsesOldSelf() bool { return r.usesOldSelf }

// Validate evaluates the rule for the value self at fldPath, with oldSelf the stored value
// on update. self and oldSelf are Go values (a string, an int32, a struct, ...) or nil when
// the value is absent (see Present); they are converted to their JSON shape first.
//
// The rule does not run when self is absent, nor, when it refers to oldSelf without
// OptionalOldSelf, unless op is an update and oldSelf is present. A false result is one error
// of the rule's reason (see the package doc); an evaluation error (a missing key, an
// overflow, the cost limit) is a field.Invalid whose value is the subject's type name, as
// kube-apiserver reports it. Every error has the origin Origin. A nil *Rule (never compiled)
// yields an internal error.
func (r *Rule) Validate(ctx context.Context, op operation.Operation, fldPath *field.Path, self, oldSelf any) field.ErrorList {
	if r == nil {
		return field.ErrorList{field.InternalError(fldPath, fmt.Errorf("validation rule not compiled"))}
	}
	if op.Type != operation.Update {
		oldSelf = nil
	}
	if !runs(r.spec, r.usesOldSelf, self, oldSelf) {
		return nil
	}
	typeName := r.self.String()
	j, withSchema := self.(JSON)
	if withSchema = withSchema && j.Schema != nil; withSchema {
		typeName = j.Schema.Type()
	}
	vars, selfJSON, err := r.activation(self, oldSelf)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, typeName, fmt.Sprintf("%v evaluating rule: %s", err, r.errorString())).WithOrigin(Origin)}
	}
	out, _, err := r.program.ContextEval(ctx, vars)
	if err != nil {
		return field.ErrorList{r.evalError(fldPath, typeName, err).WithOrigin(Origin)}
	}
	if out == types.True {
		return nil
	}
	path := fldPath
	if r.fieldPath != "" {
		path = path.Child(r.fieldPath)
	}
	var value any = selfJSON
	_, isList := selfJSON.([]any)
	omit := isList || isMap(selfJSON)
	if withSchema { // as apiextensions' validator: by the schema's type
		omit = typeName == "object" || typeName == "array"
	}
	if omit {
		value = field.OmitValueType{}
	}
	return field.ErrorList{errorForReason(path, value, r.detail(ctx, vars), r.spec.Reason).WithOrigin(Origin)}
}

// activation converts self and oldSelf to their JSON shapes and binds them (see JSON for a subject with a schema);
// it returns the bindings and self's JSON shape.
func (r *Rule) activation(self, oldSelf any) (map[string]any, any, error) {
	selfJSON, err := r.toJSON(self)
	if err != nil {
		return nil, nil, err
	}
	vars := map[string]any{selfVar: r.bind(self, selfJSON)}
	var old ref.Val
	if oldSelf != nil {
		oldJSON, err := r.toJSON(oldSelf)
		if err != nil {
			return nil, nil, err
		}
		var ok bool
		if old, ok = r.bind(oldSelf, oldJSON).(ref.Val); !ok {
			old = types.DefaultTypeAdapter.NativeToValue(oldJSON)
		}
	}
	switch {
	case r.spec.OptionalOldSelf && old == nil:
		vars[oldSelfVar] = types.OptionalNone
	case r.spec.OptionalOldSelf:
		vars[oldSelfVar] = types.OptionalOf(old)
	case old != nil:
		vars[oldSelfVar] = old
	}
	return vars, selfJSON, nil
}

// bind returns what v, a subject whose JSON shape is j, is bound as: common.UnstructuredToVal's value when v is a
// JSON with a schema, else j itself, which cel-go adapts as a native Go value.
func (r *Rule) bind(v, j any) any {
	if s, ok := v.(JSON); ok && s.Schema != nil {
		return common.UnstructuredToVal(j, s.Schema)
	}
	return j
}

// toJSON converts a Go value to the values encoding/json would decode its JSON into, with
// integers as int64 (k8s.io/apimachinery/pkg/util/json), and integral numbers of a Double
// subject as float64.
func (r *Rule) toJSON(v any) (any, error) {
	if j, ok := v.(JSON); ok {
		return j.Value, nil
	}
	if out, ok := r.scalarJSON(v); ok {
		return out, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the value: %w", err)
	}
	var out any
	if err := utiljson.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("cannot decode the value: %w", err)
	}
	if i, ok := out.(int64); ok && r.self == Double {
		return float64(i), nil
	}
	return out, nil
}

// scalarJSON converts a string, bool or number without its own JSON encoding directly, as
// toJSON would (integers as int64; float64 only for a Double subject, where it stays
// float64), sparing the encode and decode; ok is false for every other value.
func (r *Rule) scalarJSON(v any) (out any, ok bool) {
	switch v.(type) {
	case json.Marshaler, encoding.TextMarshaler:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if r.self == Double {
			return float64(rv.Int()), true
		}
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 && r.self != Double {
			return int64(u), true
		}
	case reflect.Float64: // float32 keeps the JSON path: encoding/json rounds it to 32 bits
		if r.self == Double {
			return rv.Float(), true
		}
	}
	return nil, false
}

// evalError turns an evaluation error into kube-apiserver's Invalid error, whose value is typeName.
func (r *Rule) evalError(fldPath *field.Path, typeName string, err error) *field.Error {
	msg := err.Error()
	var detail string
	switch {
	case strings.HasPrefix(msg, "no such overload"):
		detail = fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %s", err, r.errorString())
	case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
		detail = fmt.Sprintf("'%v': call cost exceeds limit for rule: %s", err, r.errorString())
	default:
		detail = fmt.Sprintf("%v evaluating rule: %s", err, r.errorString())
	}
	return field.Invalid(fldPath, typeName, detail)
}

// detail is the message of a failed rule: the message expression's result when it yields a
// non-empty single-line string, else Message, else "failed rule: <rule>".
func (r *Rule) detail(ctx context.Context, vars map[string]any) string {
	if r.message != nil {
		out, _, err := r.message.ContextEval(ctx, vars)
		if err == nil {
			if s, ok := out.Value().(string); ok && strings.TrimSpace(s) != "" && !strings.ContainsAny(s, "\r\n") {
				return s
			}
		}
	}
	if msg := strings.TrimSpace(r.spec.Message); msg != "" {
		return msg
	}
	return "failed rule: " + r.errorString()
}

// errorString names the rule in evaluation errors: its message, else its trimmed text.
func (r *Rule) errorString() string {
	if msg := strings.TrimSpace(r.spec.Message); msg != "" {
		return msg
	}
	return strings.TrimSpace(r.spec.Rule)
}

// errorForReason builds the error of a failed rule, as apiextensions' fieldErrorForReason.
func errorForReason(path *field.Path, value any, detail, reason string) *field.Error {
	switch reason {
	case ReasonForbidden:
		return field.Forbidden(path, detail)
	case ReasonRequired:
		return field.Required(path, detail)
	case ReasonDuplicate:
		return field.Duplicate(path, value)
	}
	return field.Invalid(path, value, detail)
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// Present returns *v as the subject of a rule, or nil when the value is absent: v is nil,
// *v is a nil pointer, slice, map or interface, or omitEmpty is set (the field's JSON tag has
// omitempty) and *v is its type's zero value, so the field would not be serialized.
func Present[T any](v *T, omitEmpty bool) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v).Elem()
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
	}
	if omitEmpty && rv.IsZero() {
		return nil
	}
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map {
		if omitEmpty && rv.Len() == 0 {
			return nil
		}
	}
	return *v
}

// runs reports whether a rule of spec, referring to oldSelf or not, is evaluated for self
// and oldSelf (nil when absent; oldSelf nil unless the operation is an update): not when self
// is absent, nor, for a rule that refers to oldSelf without OptionalOldSelf, when oldSelf is.
func runs(spec Spec, usesOldSelf bool, self, oldSelf any) bool {
	return self != nil && (!usesOldSelf || oldSelf != nil || spec.OptionalOldSelf)
}

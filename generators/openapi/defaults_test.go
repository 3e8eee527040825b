package openapi

import (
	"encoding/json"
	"testing"

	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/model/modeltest"
)

// TestEnforcedDefaults checks the defaults published for fields without +default: the value the
// server's decoding gives a key left out, and none where the server refuses the request without
// the key (a required field) or would not report the keys a default {} leaves missing (a
// struct with required fields, as a field, a list item or a map value).
func TestEnforcedDefaults(t *testing.T) {
	const p = "example.com/shop/apis/db/v1"
	free := modeltest.Struct(p, "Free", "Free has no required field.",
		modeltest.Field("Note", "note", modeltest.Basic("string"), "", model.Markers{Optional: true}))
	strict := modeltest.Struct(p, "Strict", "Strict has a required field.",
		modeltest.Field("Name", "name", modeltest.Basic("string"), "", model.Markers{}))
	embedsStrict := modeltest.Struct(p, "EmbedsStrict", "EmbedsStrict inlines Strict.", modeltest.Embedded(strict, ""))
	none := struct{}{}
	for _, c := range []struct {
		name  string
		field *model.Field
		want  any // none: no default
	}{
		{"optional string without omitempty", &model.Field{Name: "A", JSONName: "a", Type: modeltest.Basic("string")}, ""},
		{"optional int32 without omitempty", &model.Field{Name: "A", JSONName: "a", Type: modeltest.Basic("int32")}, 0},
		{"optional string with omitempty", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: modeltest.Basic("string")}, none},
		{"required string", &model.Field{Name: "A", JSONName: "a", Required: true, Type: modeltest.Basic("string")}, none},
		{"required int32", &model.Field{Name: "A", JSONName: "a", Required: true, Type: modeltest.Basic("int32")}, none},
		{"required struct", &model.Field{Name: "A", JSONName: "a", Required: true, Type: modeltest.Named(free)}, none},
		{"required string with +default", &model.Field{Name: "A", JSONName: "a", Required: true, Type: modeltest.Basic("string"),
			Markers: model.Markers{Default: str(`"x"`)}}, "x"},
		{"optional struct", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: modeltest.Named(free)}, map[string]any{}},
		{"optional struct with a required field", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: modeltest.Named(strict)}, none},
		{"optional struct inlining a required field", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: modeltest.Named(embedsStrict)}, none},
		{"pointer to a struct", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: modeltest.Ptr(modeltest.Named(free))}, none},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &builder{deps: map[string]*model.Type{}}
			s := b.fieldSchema(free, c.field)
			checkDefault(t, s, c.want)
		})
	}
	for _, c := range []struct {
		name string
		elem *model.TypeRef
		want any
	}{
		{"struct", modeltest.Named(free), map[string]any{}},
		{"struct with a required field", modeltest.Named(strict), none},
		{"string", modeltest.Basic("string"), none},
	} {
		t.Run("list item "+c.name, func(t *testing.T) {
			b := &builder{deps: map[string]*model.Type{}}
			checkDefault(t, b.refSchema(modeltest.Slice(c.elem), model.Position{}).items, c.want)
			checkDefault(t, b.refSchema(modeltest.Map(modeltest.Basic("string"), c.elem), model.Position{}).additional, c.want)
		})
	}
}

// checkDefault fails unless s's default is want (struct{}{}: none).
func checkDefault(t *testing.T, s *schema, want any) {
	t.Helper()
	if want == (struct{}{}) {
		if s.hasDefault {
			t.Errorf("default %#v, want none", s.def)
		}
		return
	}
	got, _ := json.Marshal(s.def)
	wantJSON, _ := json.Marshal(want)
	if !s.hasDefault || string(got) != string(wantJSON) {
		t.Errorf("default %#v (set %v), want %#v", s.def, s.hasDefault, want)
	}
}

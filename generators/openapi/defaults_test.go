package openapi

import (
	"encoding/json"
	"testing"

	"github.com/apigen-dev/apigen/generators/model"
)

// TestEnforcedDefaults checks the defaults published for fields without +default: the value the
// server's decoding gives a key left out, and none where the server refuses the request without
// the key (a required field) or would not report the keys a default {} leaves missing (a
// struct with required fields, as a field, a list item or a map value).
func TestEnforcedDefaults(t *testing.T) {
	const p = "example.com/shop/apis/db/v1"
	free := structType(p, "Free", "Free has no required field.",
		field("Note", "note", basic("string"), "", model.Markers{Optional: true}))
	strict := structType(p, "Strict", "Strict has a required field.",
		field("Name", "name", basic("string"), "", model.Markers{}))
	embedsStrict := structType(p, "EmbedsStrict", "EmbedsStrict inlines Strict.", embedded(strict, ""))
	none := struct{}{}
	for _, c := range []struct {
		name  string
		field *model.Field
		want  any // none: no default
	}{
		{"optional string without omitempty", &model.Field{Name: "A", JSONName: "a", Type: basic("string")}, ""},
		{"optional int32 without omitempty", &model.Field{Name: "A", JSONName: "a", Type: basic("int32")}, 0},
		{"optional string with omitempty", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: basic("string")}, none},
		{"required string", &model.Field{Name: "A", JSONName: "a", Required: true, Type: basic("string")}, none},
		{"required int32", &model.Field{Name: "A", JSONName: "a", Required: true, Type: basic("int32")}, none},
		{"required struct", &model.Field{Name: "A", JSONName: "a", Required: true, Type: named(free)}, none},
		{"required string with +default", &model.Field{Name: "A", JSONName: "a", Required: true, Type: basic("string"),
			Markers: model.Markers{Default: str(`"x"`)}}, "x"},
		{"optional struct", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: named(free)}, map[string]any{}},
		{"optional struct with a required field", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: named(strict)}, none},
		{"optional struct inlining a required field", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: named(embedsStrict)}, none},
		{"pointer to a struct", &model.Field{Name: "A", JSONName: "a", OmitEmpty: true, Type: ptr(named(free))}, none},
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
		{"struct", named(free), map[string]any{}},
		{"struct with a required field", named(strict), none},
		{"string", basic("string"), none},
	} {
		t.Run("list item "+c.name, func(t *testing.T) {
			b := &builder{deps: map[string]*model.Type{}}
			checkDefault(t, b.refSchema(slice(c.elem), model.Position{}).items, c.want)
			checkDefault(t, b.refSchema(mapOf(basic("string"), c.elem), model.Position{}).additional, c.want)
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

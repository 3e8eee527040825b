package v1

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidateConfigMap checks kube's ConfigMap rules: valid keys, no key in both data and
// binaryData, at most 1 MiB of values, and immutability on update.
func TestValidateConfigMap(t *testing.T) {
	yes, no := true, false
	big := strings.Repeat("x", MaxConfigMapSize/2)
	for _, tc := range []struct {
		name     string
		obj, old *ConfigMap
		want     []string // "<type> <field>"
	}{
		{name: "valid", obj: &ConfigMap{Data: map[string]string{"a.b-c_D9": "v", ".dot": "v"}, BinaryData: map[string][]byte{"bin": {0xff}}}},
		{name: "no data", obj: &ConfigMap{}},
		{name: "bad keys", obj: &ConfigMap{Data: map[string]string{"a/b": "", "..": ""}, BinaryData: map[string][]byte{"sp ace": nil}},
			want: []string{"FieldValueInvalid data[..]", "FieldValueInvalid data[a/b]", "FieldValueInvalid binaryData[sp ace]"}},
		{name: "key too long", obj: &ConfigMap{Data: map[string]string{strings.Repeat("k", 254): ""}},
			want: []string{"FieldValueInvalid data[" + strings.Repeat("k", 254) + "]"}},
		{name: "key of 253 characters", obj: &ConfigMap{Data: map[string]string{strings.Repeat("k", 253): ""}}},
		{name: "key in both", obj: &ConfigMap{Data: map[string]string{"k": ""}, BinaryData: map[string][]byte{"k": nil}},
			want: []string{"FieldValueInvalid data[k]"}},
		{name: "1 MiB", obj: &ConfigMap{Data: map[string]string{"a": big}, BinaryData: map[string][]byte{"b": []byte(big)}}},
		{name: "too long", obj: &ConfigMap{Data: map[string]string{"a": big, "b": big + "x"}},
			want: []string{"FieldValueTooLong []"}}, // kube's field: the empty path prints as "[]"
		{name: "mutable update", obj: &ConfigMap{Data: map[string]string{"a": "2"}, Immutable: &yes},
			old: &ConfigMap{Data: map[string]string{"a": "1"}, Immutable: &no}},
		{name: "immutable metadata update", obj: &ConfigMap{Data: map[string]string{"a": "1"}, Immutable: &yes},
			old: &ConfigMap{Data: map[string]string{"a": "1"}, Immutable: &yes}},
		{name: "immutable data", obj: &ConfigMap{Data: map[string]string{"a": "2"}, Immutable: &yes},
			old: &ConfigMap{Data: map[string]string{"a": "1"}, Immutable: &yes}, want: []string{"FieldValueForbidden data"}},
		{name: "immutable binaryData and unset", obj: &ConfigMap{BinaryData: map[string][]byte{"b": {1}}},
			old: &ConfigMap{Immutable: &yes}, want: []string{"FieldValueForbidden immutable", "FieldValueForbidden binaryData"}},
		{name: "immutable set to false", obj: &ConfigMap{Immutable: &no}, old: &ConfigMap{Immutable: &yes},
			want: []string{"FieldValueForbidden immutable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs field.ErrorList
			if tc.old == nil {
				errs = ValidateConfigMap(tc.obj)
			} else {
				errs = ValidateConfigMapUpdate(tc.obj, tc.old)
			}
			var got []string
			for _, e := range errs {
				got = append(got, string(e.Type)+" "+e.Field)
				if e.Type == field.ErrorTypeForbidden && e.Detail != "field is immutable when `immutable` is set" {
					t.Errorf("detail %q", e.Detail)
				}
				if e.Type == field.ErrorTypeTooLong && e.Detail != "may not be more than 1048576 bytes" {
					t.Errorf("detail %q", e.Detail)
				}
			}
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("errors %q, want %q (%v)", got, tc.want, errs)
			}
		})
	}
}

package v1

import (
	"encoding/json"
	"testing"
)

// TestJSONSchemaPropsRoundTrip decodes and re-encodes schemas using every hand-marshalled
// type (JSON, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, JSONSchemaPropsOrStringArray):
// the JSON must come back unchanged, as upstream's marshal_test.go checks.
func TestJSONSchemaPropsRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","default":{"a":[1,"x",null]},"enum":[1,"two",true],"example":"text"}`,
		`{"type":"array","items":{"type":"string"}}`,
		`{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}`,
		`{"type":"object","additionalProperties":true}`,
		`{"type":"object","additionalProperties":false}`,
		`{"type":"object","additionalProperties":{"type":"integer","format":"int32"}}`,
		`{"dependencies":{"a":["b","c"],"d":{"required":["e"]}}}`,
		`{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"self.a \u003c 3","reason":"FieldValueForbidden","fieldPath":".a"}]}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","$ref":"#/definitions/a","definitions":{"a":{"type":"string"}}}`,
	} {
		var props JSONSchemaProps
		if err := json.Unmarshal([]byte(in), &props); err != nil {
			t.Errorf("decode %s: %v", in, err)
			continue
		}
		out, err := json.Marshal(&props)
		if err != nil {
			t.Errorf("encode %s: %v", in, err)
			continue
		}
		if string(out) != in {
			t.Errorf("round trip:\n in: %s\nout: %s", in, out)
		}
		if c := props.DeepCopy(); !jsonEqual(t, c, &props) {
			t.Errorf("DeepCopy of %s differs", in)
		}
	}
}

// TestJSONSchemaPropsOrBoolRejects checks that additionalProperties must be a schema or a
// boolean.
func TestJSONSchemaPropsOrBoolRejects(t *testing.T) {
	var props JSONSchemaProps
	if err := json.Unmarshal([]byte(`{"additionalProperties":"yes"}`), &props); err == nil {
		t.Error("additionalProperties \"yes\" decoded without error")
	}
}

// jsonEqual compares a and b by their JSON encoding.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(ja) == string(jb)
}

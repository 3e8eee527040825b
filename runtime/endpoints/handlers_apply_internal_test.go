package endpoints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// TestDecodeJSONConfiguration checks that a JSON apply configuration decodes as
// k8s.io/apimachinery's yaml.Unmarshal decodes it, and that what the fast path leaves (not an
// object, duplicate fields, malformed JSON) goes to the YAML path.
func TestDecodeJSONConfiguration(t *testing.T) {
	for _, doc := range []string{
		`{"apiVersion":"v1","kind":"K","spec":{"a":1.0,"b":1.5,"c":1e3,"d":1e20,"e":"1","f":9007199254740993,"g":-0.0,"h":null,"i":true,"j":[1,2.5,{"k":3.0}],"l":{}}}`,
		" \n{\"x\": \"\\u00e9\\u003c\\n\", \"y\": -12, \"z\": 0.000001}\n",
		`{"n": 9223372036854775807, "m": -9223372036854775808, "o": 1e19}`,
	} {
		got, strict := decodeJSONConfiguration([]byte(doc))
		if got == nil || !strict {
			t.Fatalf("%s: not decoded by the fast path", doc)
		}
		want := map[string]any{}
		if err := utilyaml.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-yaml +fast):\n%s", doc, diff)
		}
	}
	for _, doc := range []string{`{"a":1,"a":2}`, `[1]`, "a: 1\n", `{"a":`, ``, `null`, `{"a":"\/"}`, "{\"a\":\t1}", `{"a":"\ud83d\ude00"}`} {
		if got, _ := decodeJSONConfiguration([]byte(doc)); got != nil {
			t.Errorf("%q: decoded by the fast path as %v", doc, got)
		}
	}
}

// Package fuzzer keeps randomly filled apiextensions.k8s.io/v1 objects within what their JSON
// can carry, as apiextensions-apiserver's pkg/apis/apiextensions/fuzzer: the generated
// round-trip test (install/zz_generated.roundtrip_test.go) fills objects with Funcs.
package fuzzer

import (
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
)

// jsonValues are the values a fuzzed JSON (a schema's default, enum or example) takes, in
// compact form: encoding/json compacts what a MarshalJSON method returns.
var jsonValues = []string{`{"some":{"json":"test"},"string":42}`, `"foobarbaz"`, `42`, `true`, `[1,"a",null]`}

// Funcs are the group's fuzzer functions, an apimachinery fuzzer.FuzzerFuncs: a JSON value is
// valid JSON, and each of the either-or schema types (JSONSchemaPropsOrBool, ...OrArray,
// ...OrStringArray) has one of its two shapes set, as they marshal one of them, as
// apiextensions-apiserver's fuzzer does.
func Funcs(serializer.CodecFactory) []interface{} {
	return []interface{}{
		func(obj *apiextensionsv1.JSON, c randfill.Continue) {
			obj.Raw = []byte(jsonValues[c.Intn(len(jsonValues))])
		},
		func(obj *apiextensionsv1.JSONSchemaPropsOrBool, c randfill.Continue) {
			if c.Bool() {
				obj.Allows = true
				obj.Schema = &apiextensionsv1.JSONSchemaProps{}
				c.Fill(obj.Schema)
			} else {
				obj.Allows = c.Bool()
			}
		},
		func(obj *apiextensionsv1.JSONSchemaPropsOrArray, c randfill.Continue) {
			if c.Bool() {
				obj.Schema = &apiextensionsv1.JSONSchemaProps{}
				c.Fill(obj.Schema)
			} else {
				obj.JSONSchemas = make([]apiextensionsv1.JSONSchemaProps, c.Intn(3)+1)
				for i := range obj.JSONSchemas {
					c.Fill(&obj.JSONSchemas[i])
				}
			}
		},
		func(obj *apiextensionsv1.JSONSchemaPropsOrStringArray, c randfill.Continue) {
			if c.Bool() {
				obj.Schema = &apiextensionsv1.JSONSchemaProps{}
				c.Fill(obj.Schema)
			} else {
				c.Fill(&obj.Property)
			}
		},
	}
}

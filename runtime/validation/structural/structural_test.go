package structural

import (
	"strings"
	"testing"
)

func TestNewAcceptsStructuralSchemas(t *testing.T) {
	for name, doc := range map[string]string{
		"crontab":                                   cronTab,
		"int-or-string without type":                `{type: object, properties: {port: {x-kubernetes-int-or-string: true}}}`,
		"int-or-string anyOf pattern":               `{type: object, properties: {port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}}}`,
		"int-or-string allOf pattern":               `{type: object, properties: {port: {x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string}]}, {pattern: "^[0-9]+$"}]}}}`,
		"preserve unknown without type":             `{type: object, properties: {raw: {x-kubernetes-preserve-unknown-fields: true}}}`,
		"root metadata name":                        `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 10}}}}}`,
		"embedded resource":                         `{type: object, properties: {template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}`,
		"value validations in junctors":             `{type: object, properties: {a: {type: string, anyOf: [{maxLength: 2}, {minLength: 5}], not: {pattern: "^x"}}}}`,
		"list map":                                  `{type: object, properties: {ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, properties: {name: {type: string}}}}}}`,
		"valid rules":                               `{type: object, x-kubernetes-validations: [{rule: "self.spec.a <= 3", messageExpression: "'a is ' + string(self.spec.a)"}], properties: {spec: {type: object, properties: {a: {type: integer}}}}}`,
		"additionalProperties true with properties": `{type: object, properties: {a: {type: object, properties: {b: {type: string}}, additionalProperties: true}}}`,
		"object default":                            `{type: object, properties: {spec: {type: object, default: {a: 1}, properties: {a: {type: integer}}}}}`,
	} {
		t.Run(name, func(t *testing.T) { mustNew(t, doc) })
	}
}

func TestNewViolations(t *testing.T) {
	p := root.String()
	for _, tc := range []struct {
		name string
		doc  string
		want []string // every error, rendered, in order
	}{
		{"no type at the root", `{properties: {a: {type: string}}}`,
			[]string{p + `.type: Required value: must not be empty at the root`}},
		{"no type for a field", `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`,
			[]string{p + `.properties[spec].type: Required value: must not be empty for specified object fields`}},
		{"no type for items", `{type: object, properties: {a: {type: array, items: {}}}}`,
			[]string{p + `.properties[a].items.type: Required value: must not be empty for specified array items`}},
		{"array without items", `{type: object, properties: {a: {type: array}}}`,
			[]string{p + `.properties[a].items: Required value: must be specified`}},
		{"root not an object", `{type: string}`,
			[]string{p + `.type: Invalid value: "string": must be object at the root`}},
		{"unknown type", `{type: object, properties: {a: {type: float}}}`,
			[]string{p + `.properties[a].type: Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"`}},
		{"additionalProperties at the root", `{type: object, additionalProperties: {type: string}}`,
			[]string{p + `.additionalProperties: Forbidden: must not be used at the root`}},
		{"additionalProperties with properties", `{type: object, properties: {a: {type: object, properties: {b: {type: string}}, additionalProperties: {type: string}}}}`,
			[]string{p + `.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`}},
		{"additionalProperties false", `{type: object, properties: {a: {type: object, additionalProperties: false}}}`,
			[]string{p + `.properties[a].additionalProperties: Forbidden: additionalProperties cannot be set to false`}},
		{"nullable root", `{type: object, nullable: true}`,
			[]string{p + `.nullable: Forbidden: nullable cannot be true at the root`}},
		{"$ref", `{type: object, properties: {a: {type: string, $ref: "#/definitions/a"}}}`,
			[]string{p + `.properties[a].$ref: Forbidden: $ref is not supported`}},
		{"uniqueItems", `{type: object, properties: {a: {type: array, uniqueItems: true, items: {type: string}}}}`,
			[]string{p + `.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`}},
		{"items array", `{type: object, properties: {a: {type: array, items: [{type: string}]}}}`,
			[]string{p + `.properties[a].items: Forbidden: items must be a schema object and not an array`}},
		{"bad pattern", `{type: object, properties: {a: {type: string, pattern: "(["}}}`,
			[]string{p + `.properties[a].pattern: Invalid value: "([": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: ` + "`[`"}},
		{"preserve unknown false", `{type: object, properties: {a: {type: object, x-kubernetes-preserve-unknown-fields: false}}}`,
			[]string{p + `.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`}},
		{"type in a junctor", `{type: object, properties: {a: {type: string, anyOf: [{type: string}, {maxLength: 3, default: "x"}]}}}`,
			[]string{
				p + `.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
				p + `.properties[a].anyOf[1].default: Forbidden: must be undefined to be structural`,
			}},
		{"metadata in a junctor", `{type: object, allOf: [{properties: {metadata: {}}}]}`,
			[]string{
				p + `.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
				p + `.properties[metadata]: Required value: because it is defined in ` + p + `.allOf[0].properties[metadata]`,
			}},
		{"junctor property not in the structural schema", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}, anyOf: [{properties: {spec: {required: [a], properties: {a: {minLength: 1}, b: {minLength: 1}}}}}]}`,
			[]string{p + `.properties[spec].properties[b]: Required value: because it is defined in ` + p + `.anyOf[0].properties[spec].properties[b]`}},
		{"junctor items not in the structural schema", `{type: object, properties: {a: {type: object, x-kubernetes-preserve-unknown-fields: true}}, not: {properties: {a: {items: {maxLength: 1}}}}}`,
			[]string{p + `.properties[a].items: Required value: because it is defined in ` + p + `.not.properties[a].items`}},
		{"unknown map type", `{type: object, properties: {a: {type: object, x-kubernetes-map-type: sparse}}}`,
			[]string{p + `.properties[a].x-kubernetes-map-type: Unsupported value: "sparse": supported values: "granular", "atomic"`}},
		{"default failing a rule", `{type: object, properties: {spec: {type: object, properties: {a: {type: integer, default: 5, x-kubernetes-validations: [{rule: "self < 3", message: too big}]}}}}}`,
			[]string{p + `.properties[spec].properties[a].default: Invalid value: 5: too big`}},
		{"root metadata beyond name", `{type: object, properties: {metadata: {type: object, properties: {labels: {type: object}}}}}`,
			[]string{p + `.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`}},
		{"root metadata not an object", `{type: object, properties: {metadata: {type: string}}}`,
			[]string{p + `.properties[metadata].type: Invalid value: "string": must be object`}},
		{"kind not a string", `{type: object, properties: {kind: {type: integer}}}`,
			[]string{p + `.properties[kind].type: Invalid value: "integer": must be string`}},
		{"embedded resource not an object", `{type: object, properties: {e: {type: string, x-kubernetes-embedded-resource: true}}}`,
			[]string{
				p + `.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
				p + `.properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
			}},
		{"embedded resource without properties", `{type: object, properties: {e: {type: object, x-kubernetes-embedded-resource: true}}}`,
			[]string{p + `.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`}},
		{"int-or-string and preserve", `{type: object, properties: {a: {x-kubernetes-int-or-string: true, x-kubernetes-preserve-unknown-fields: true}}}`,
			[]string{p + `.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`}},
		{"unknown list type", `{type: object, properties: {a: {type: array, x-kubernetes-list-type: bag, items: {type: string}}}}`,
			[]string{p + `.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "map", "set"`}},
		{"list map without keys", `{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, items: {type: object, properties: {n: {type: string}}}}}}`,
			[]string{p + `.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is "map"`}},
		{"list map key not a property", `{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [id], items: {type: object, properties: {n: {type: string}}}}}}`,
			[]string{p + `.properties[a].x-kubernetes-list-map-keys[0]: Invalid value: "id": entries must all be names of item properties`}},
		{"default of the wrong type", `{type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, default: "one"}}}}}`,
			[]string{p + `.properties[spec].properties[replicas].default: Invalid value: "string": ` + p + `.properties[spec].properties[replicas].default in body must be of type integer: "string"`}},
		{"default with unknown fields", `{type: object, properties: {spec: {type: object, default: {a: 1, b: 2}, properties: {a: {type: integer}}}}}`,
			[]string{p + `.properties[spec].default: Invalid value: {"a":1,"b":2}: must not have unknown fields`}},
		{"default in metadata", `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, default: x}}}}}`,
			[]string{p + `.properties[metadata].properties[name].default: Forbidden: must not be set inside metadata, apiVersion or kind`}},
		{"several violations, sorted", `{type: object, properties: {b: {}, a: {type: array}}}`,
			[]string{
				p + `.properties[a].items: Required value: must be specified`,
				p + `.properties[b].type: Required value: must not be empty for specified object fields`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, errs := New(decode(t, tc.doc), root)
			if got, want := render(errs), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("New errors:\n%s\nwant:\n%s", got, want)
			}
			if s != nil {
				t.Errorf("New returned a schema with errors")
			}
		})
	}
}

func TestNewCompilesRules(t *testing.T) {
	p := root.String() + ".properties[spec].x-kubernetes-validations[0]"
	for _, tc := range []struct {
		name, rule, want string
	}{
		{"syntax", `{rule: "self.a >"}`, p + `.rule: Invalid value: "self.a >": compilation failed: ERROR: <input>:1:9: Syntax error`},
		{"not a bool", `{rule: "self.a + 1"}`, p + `.rule: Invalid value: "self.a + 1": compilation failed: the expression must evaluate to bool`},
		{"message expression", `{rule: "true", messageExpression: "1"}`, p + `.messageExpression: Invalid value: "1": messageExpression compilation failed: the expression must evaluate to string, not int`},
		{"reason", `{rule: "true", reason: Wrong}`, p + `.reason: Unsupported value: "Wrong": supported values: "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"`},
		{"empty", `{rule: ""}`, p + `.rule: Required value: rule is not specified`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{type: object, properties: {spec: {type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [` + tc.rule + `]}}}`
			_, errs := New(decode(t, doc), root)
			if got := render(errs); len(errs) != 1 || !strings.HasPrefix(got, tc.want) {
				t.Errorf("New errors:\n%s\nwant one starting with:\n%s", got, tc.want)
			}
		})
	}
}

func TestCheckStatusRoot(t *testing.T) {
	p := root.String()
	for _, tc := range []struct{ name, doc, want string }{
		{"allowed", `{type: object, description: d, required: [spec], properties: {spec: {type: object}}, x-kubernetes-validations: [{rule: "true"}]}`, ""},
		{"zero values are ignored", `{type: object, nullable: false, enum: []}`, ""},
		{"not an object", `{type: array}`, p + `.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`},
		{"anyOf", `{type: object, anyOf: [{required: [spec]}]}`, p + `: Invalid value: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(CheckStatusRoot(decode(t, tc.doc), root)); got != tc.want {
				t.Errorf("CheckStatusRoot:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestType(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, properties: {
		ports: {type: array, items: {type: object, properties: {port: {x-kubernetes-int-or-string: true}, num: {type: integer}}}},
		labels: {type: object, additionalProperties: {type: string}}}}}}`)
	for _, tc := range []struct {
		path []string
		want string
	}{
		{nil, "object"},
		{[]string{"spec", "ports"}, "array"},
		{[]string{"spec", "ports", "[]", "num"}, "integer"},
		{[]string{"spec", "ports", "[]", "port"}, ""},
		{[]string{"spec", "labels", "*"}, "string"},
		{[]string{"spec", "missing", "x"}, ""},
	} {
		if got := s.Type(tc.path...); got != tc.want {
			t.Errorf("Type(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

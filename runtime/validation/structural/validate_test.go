package structural

import (
	"context"
	"strings"
	"testing"
)

var ctx = context.Background()

// TestValidateCronTab validates the documentation's CronTab example, whose output the documentation shows.
func TestValidateCronTab(t *testing.T) {
	s := mustNew(t, cronTab)
	ok := decode(t, `{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: my-new-cron-object}, spec: {cronSpec: "* * * * */5", image: my-awesome-cron-image, replicas: 3}}`)
	if errs := s.Validate(ctx, ok, nil); len(errs) != 0 {
		t.Errorf("valid CronTab rejected:\n%s", render(errs))
	}
	bad := decode(t, `{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: my-new-cron-object}, spec: {cronSpec: "* * * *", image: my-awesome-cron-image, replicas: 15}}`)
	want := `spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'` + "\n" +
		`spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10`
	if got := render(s.Validate(ctx, bad, nil)); got != want {
		t.Errorf("invalid CronTab:\n%s\nwant:\n%s", got, want)
	}
}

// TestValidateKeywords checks each value validation keyword with one valid and one invalid value of spec.v.
func TestValidateKeywords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string // the schema of spec.v
		ok     string // a valid spec.v, as YAML
		bad    string // an invalid spec.v
		want   string // the one error of bad
	}{
		{"type integer", `{type: integer}`, `3`, `"3"`, `spec.v: Invalid value: "string": spec.v in body must be of type integer: "string"`},
		{"integral float is an integer", `{type: integer}`, `3.0`, `3.5`, "spec.v: Invalid value: \"number\": spec.v in body must be of type integer: \"number\"\n" +
			`<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.v`},
		{"type string", `{type: string}`, `"a"`, `true`, `spec.v: Invalid value: "boolean": spec.v in body must be of type string: "boolean"`},
		{"type boolean", `{type: boolean}`, `true`, `"true"`, `spec.v: Invalid value: "string": spec.v in body must be of type boolean: "string"`},
		{"type array", `{type: array, items: {type: string}}`, `[a]`, `a`, `spec.v: Invalid value: "string": spec.v in body must be of type array: "string"`},
		{"type object", `{type: object, properties: {a: {type: string}}}`, `{a: x}`, `[]`, `spec.v: Invalid value: "array": spec.v in body must be of type object: "array"`},
		{"not nullable", `{type: string}`, `"a"`, `null`, `spec.v: Invalid value: "null": spec.v in body must be of type string: "null"`},
		{"nullable", `{type: string, nullable: true, maxLength: 1}`, `null`, `"ab"`, `spec.v: Too long: may not be more than 1 byte`},
		{"enum", `{type: string, enum: [a, b]}`, `a`, `c`, `spec.v: Unsupported value: "c": supported values: "a", "b"`},
		{"enum of numbers", `{type: integer, enum: [1, 2]}`, `2`, `3`, `spec.v: Unsupported value: 3: supported values: "1", "2"`},
		{"minimum", `{type: integer, minimum: 1}`, `1`, `0`, `spec.v: Invalid value: 0: spec.v in body should be greater than or equal to 1`},
		{"exclusive minimum", `{type: integer, minimum: 1, exclusiveMinimum: true}`, `2`, `1`, `spec.v: Invalid value: 1: spec.v in body should be greater than 1`},
		{"maximum", `{type: number, maximum: 1.5}`, `1.5`, `2`, `spec.v: Invalid value: 2: spec.v in body should be less than or equal to 1.5`},
		{"exclusive maximum", `{type: integer, maximum: 10, exclusiveMaximum: true}`, `9`, `10`, `spec.v: Invalid value: 10: spec.v in body should be less than 10`},
		{"multipleOf", `{type: integer, multipleOf: 5}`, `10`, `7`, `spec.v: Invalid value: 7: spec.v in body should be a multiple of 5`},
		{"minLength", `{type: string, minLength: 2}`, `ab`, `a`, `spec.v: Invalid value: "a": spec.v in body should be at least 2 chars long`},
		{"maxLength", `{type: string, maxLength: 2}`, `ab`, `abc`, `spec.v: Too long: may not be more than 2 bytes`},
		{"pattern", `{type: string, pattern: "^[a-z]+$"}`, `abc`, `ABC`, `spec.v: Invalid value: "ABC": spec.v in body should match '^[a-z]+$'`},
		{"minItems", `{type: array, minItems: 1, items: {type: string}}`, `[a]`, `[]`, `spec.v: Invalid value: 0: spec.v in body should have at least 1 items`},
		{"maxItems", `{type: array, maxItems: 1, items: {type: string}}`, `[a]`, `[a, b]`, `spec.v: Too many: 2: must have at most 1 item`},
		{"minProperties", `{type: object, minProperties: 1, additionalProperties: {type: string}}`, `{a: x}`, `{}`, `spec.v: Invalid value: 0: spec.v in body should have at least 1 properties`},
		{"maxProperties", `{type: object, maxProperties: 1, additionalProperties: {type: string}}`, `{a: x}`, `{a: x, b: z}`, `spec.v: Too many: 2: must have at most 1 item`},
		{"required", `{type: object, required: [a], properties: {a: {type: string}}}`, `{a: x}`, `{}`, `spec.v.a: Required value`},
		{"additionalProperties", `{type: object, additionalProperties: {type: integer}}`, `{a: 1}`, `{a: x}`, `spec.v.a: Invalid value: "string": spec.v.a in body must be of type integer: "string"`},
		{"items", `{type: array, items: {type: integer}}`, `[1, 2]`, `[1, x]`, `spec.v[1]: Invalid value: "string": spec.v[1] in body must be of type integer: "string"`},
		{"int-or-string", `{x-kubernetes-int-or-string: true}`, `8080`, `true`, `spec.v: Invalid value: "boolean": spec.v in body must be of type integer,string: "boolean"`},
		{"int-or-string string", `{x-kubernetes-int-or-string: true}`, `http`, `1.5`, `spec.v: Invalid value: "number": spec.v in body must be of type integer,string: "number"`},
		{"format date-time", `{type: string, format: date-time}`, `"2024-01-02T03:04:05Z"`, `yesterday`, `spec.v: Invalid value: "yesterday": spec.v in body must be of type date-time: "yesterday"`},
		{"format date", `{type: string, format: date}`, `"2024-01-02"`, `"2024-13-02"`, `spec.v: Invalid value: "2024-13-02": spec.v in body must be of type date: "2024-13-02"`},
		{"format uuid", `{type: string, format: uuid}`, `"123e4567-e89b-12d3-a456-426614174000"`, `nope`, `spec.v: Invalid value: "nope": spec.v in body must be of type uuid: "nope"`},
		{"format email", `{type: string, format: email}`, `a@example.com`, `nope`, `spec.v: Invalid value: "nope": spec.v in body must be of type email: "nope"`},
		{"format ipv4", `{type: string, format: ipv4}`, `"10.0.0.1"`, `"10.0.0.300"`, `spec.v: Invalid value: "10.0.0.300": spec.v in body must be of type ipv4: "10.0.0.300"`},
		{"format byte", `{type: string, format: byte}`, `aGVsbG8=`, `"%%%"`, `spec.v: Invalid value: "%%%": spec.v in body must be of type byte: "%%%"`},
		{"format int32", `{type: integer, format: int32}`, `2147483647`, `2147483648`, `<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.v`},
		{"anyOf", `{type: string, anyOf: [{maxLength: 1}, {minLength: 3}]}`, `abc`, `ab`, "spec.v: Too long: may not be more than 1 byte\n<nil>: Invalid value: \"\": \"spec.v\" must validate at least one schema (anyOf)"},
		{"oneOf", `{type: string, oneOf: [{maxLength: 2}, {maxLength: 3}]}`, `abc`, `a`, `<nil>: Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found 2 valid alternatives`},
		{"allOf", `{type: string, allOf: [{maxLength: 3}, {minLength: 2}]}`, `ab`, `a`, "spec.v: Invalid value: \"a\": spec.v in body should be at least 2 chars long\n" +
			`<nil>: Invalid value: "": "spec.v" must validate all the schemas (allOf)`},
		{"not", `{type: string, not: {pattern: "^x"}}`, `a`, `xa`, `<nil>: Invalid value: "": "spec.v" must not validate the schema (not)`},
		{"list-type set", `{type: array, x-kubernetes-list-type: set, items: {type: integer}}`, `[1, 2]`, `[1, 2, 1.0]`, `spec.v[2]: Duplicate value: 1`},
		{"list-type map", `{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name, proto], items: {type: object, properties: {name: {type: string}, proto: {type: string}, port: {type: integer}}}}`,
			`[{name: a, proto: TCP}, {name: a, proto: UDP}]`, `[{name: a, proto: TCP, port: 1}, {name: a, proto: TCP, port: 2}]`,
			`spec.v[1]: Duplicate value: {"name":"a","proto":"TCP"}`},
		{"embedded resource", `{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`,
			`{apiVersion: v1, kind: Pod, metadata: {name: p}}`, `{kind: Pod, metadata: {name: p}}`, `spec.v.apiVersion: Required value`},
		{"embedded resource kind", `{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`,
			`{apiVersion: apps/v1, kind: Deployment}`, `{apiVersion: v1, kind: "a_b"}`,
			`spec.v.kind: Invalid value: "a_b": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		{"embedded resource name", `{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`,
			`{apiVersion: v1, kind: Pod, metadata: {name: p}}`, `{apiVersion: v1, kind: Pod, metadata: {name: P}}`,
			`spec.v.metadata.name: Invalid value: "P": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustNew(t, `{type: object, properties: {spec: {type: object, properties: {v: `+tc.schema+`}}}}`)
			ok := decode(t, "spec:\n  v: "+tc.ok)
			if errs := s.Validate(ctx, ok, nil); len(errs) != 0 {
				t.Errorf("%s rejected:\n%s", tc.ok, render(errs))
			}
			bad := decode(t, "spec:\n  v: "+tc.bad)
			if got := render(s.Validate(ctx, bad, nil)); got != tc.want {
				t.Errorf("%s:\n%s\nwant:\n%s", tc.bad, got, tc.want)
			}
		})
	}
}

// TestValidateIntegers accepts integers as unstructured JSON decodes them (int64) and as encoding/json does
// (float64 without fraction).
func TestValidateIntegers(t *testing.T) {
	s := mustNew(t, cronTab)
	for _, v := range []any{int64(3), float64(3)} {
		obj := map[string]any{"spec": map[string]any{"replicas": v}}
		if errs := s.Validate(ctx, obj, nil); len(errs) != 0 {
			t.Errorf("replicas %T rejected:\n%s", v, render(errs))
		}
	}
	obj := map[string]any{"spec": map[string]any{"replicas": int64(11)}}
	if got := render(s.Validate(ctx, obj, nil)); !strings.Contains(got, "should be less than or equal to 10") {
		t.Errorf("int64 11: %s", got)
	}
}

// TestValidateMetadata validates metadata only as far as the schema may restrict it: name and generateName.
func TestValidateMetadata(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 5}}}}}`)
	ok := decode(t, `{metadata: {name: abc, labels: {a: b}, annotations: {x: y}}}`)
	if errs := s.Validate(ctx, ok, nil); len(errs) != 0 {
		t.Errorf("valid metadata rejected:\n%s", render(errs))
	}
	bad := decode(t, `{metadata: {name: abcdef}}`)
	if got, want := render(s.Validate(ctx, bad, nil)), `metadata.name: Too long: may not be more than 5 bytes`; got != want {
		t.Errorf("long name:\n%s\nwant:\n%s", got, want)
	}
}

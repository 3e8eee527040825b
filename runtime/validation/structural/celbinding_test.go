package structural

import (
	"testing"
)

// parentRefsSchema is the parentRefs list of Gateway API v1.6.3's HTTPRoute CRD (config/crd/standard), cut down to
// the properties its rule reads, with its rule "sectionName must be unique when parentRefs includes 2 or more
// references to the same parent", which names the property namespace escaped, as __namespace__.
const parentRefsSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      parentRefs:
        type: array
        maxItems: 32
        items:
          type: object
          required: [name]
          properties:
            group: {type: string, default: gateway.networking.k8s.io}
            kind: {type: string, default: Gateway}
            name: {type: string}
            namespace: {type: string}
            sectionName: {type: string}
        x-kubernetes-validations:
        - message: sectionName must be unique when parentRefs includes 2 or more references to the same parent
          rule: self.all(p1, self.exists_one(p2, p1.group == p2.group && p1.kind == p2.kind && p1.name == p2.name &&
            (((!has(p1.__namespace__) || p1.__namespace__ == '') && (!has(p2.__namespace__) || p2.__namespace__ == ''))
            || (has(p1.__namespace__) && has(p2.__namespace__) && p1.__namespace__ == p2.__namespace__ )) &&
            (((!has(p1.sectionName) || p1.sectionName == '') && (!has(p2.sectionName) || p2.sectionName == ''))
            || (has(p1.sectionName) && has(p2.sectionName) && p1.sectionName == p2.sectionName))))
`

// TestRuleEscapedPropertyNames checks that a rule reaches a property whose name is not a CEL identifier by its
// escaped name (k8s.io/apiserver/pkg/cel.Escape), as kube-apiserver binds a custom resource: HTTPRoute's
// sectionName rule accepts two parentRefs that differ only in that one has a namespace (apigen read
// __namespace__ as a key of its own, never present, and rejected them) and rejects two to the same parent.
func TestRuleEscapedPropertyNames(t *testing.T) {
	s := mustNew(t, parentRefsSchema)
	const unique = "spec.parentRefs: Invalid value: sectionName must be unique when parentRefs includes 2 or more references to the same parent"
	for _, tc := range []struct{ name, obj, want string }{
		{"namespace set on one", `{spec: {parentRefs: [{group: g, kind: K, name: gw}, {group: g, kind: K, name: gw, namespace: other}]}}`, ""},
		{"namespaces differ", `{spec: {parentRefs: [{group: g, kind: K, name: gw, namespace: a}, {group: g, kind: K, name: gw, namespace: b}]}}`, ""},
		{"same parent twice", `{spec: {parentRefs: [{group: g, kind: K, name: gw, namespace: a}, {group: g, kind: K, name: gw, namespace: a}]}}`, unique},
		{"empty namespace is none", `{spec: {parentRefs: [{group: g, kind: K, name: gw, namespace: ""}, {group: g, kind: K, name: gw}]}}`, unique},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(s.Validate(ctx, decode(t, tc.obj), nil)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestRuleBinding checks the other ways kube-apiserver's binding of a custom resource's values
// (common.UnstructuredToVal) differs from plain JSON maps and lists, each with a rule that holds there (each case
// but the last was checked against apiextensions-apiserver v0.37's CRD handling; plain JSON fails them).
func TestRuleBinding(t *testing.T) {
	for _, tc := range []struct{ name, schema, obj string }{
		{"a property named with a dash", `{type: object, properties: {spec: {type: object,
			x-kubernetes-validations: [{rule: "self.max__dash__size == 3"}], properties: {max-size: {type: integer}}}}}`,
			`{spec: {max-size: 3}}`},
		{"a null property is absent", `{type: object, properties: {spec: {type: object,
			x-kubernetes-validations: [{rule: "!has(self.a)"}], properties: {a: {type: string, nullable: true}}}}}`,
			`{spec: {a: null}}`},
		{"set lists compare in any order", `{type: object, properties: {spec: {type: object,
			x-kubernetes-validations: [{rule: "self.a == ['q', 'p']"}],
			properties: {a: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}}}`,
			`{spec: {a: [p, q]}}`},
		{"date-time strings are timestamps", `{type: object, properties: {spec: {type: object,
			x-kubernetes-validations: [{rule: "self.t < timestamp('2030-01-01T00:00:00Z')"}],
			properties: {t: {type: string, format: date-time}}}}}`,
			`{spec: {t: "2026-03-01T10:00:00Z"}}`},
		{"durations", `{type: object, properties: {spec: {type: object,
			x-kubernetes-validations: [{rule: "self.d > duration('1m')"}], properties: {d: {type: string, format: duration}}}}}`,
			`{spec: {d: 1h}}`},
		{"the root's metadata.name", `{type: object,
			x-kubernetes-validations: [{rule: "self.metadata.name.startsWith('a')"}], properties: {spec: {type: object}}}`,
			`{apiVersion: v1, kind: K, metadata: {name: ab, labels: {x: z}}, spec: {}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustNew(t, tc.schema)
			if errs := s.Validate(ctx, decode(t, tc.obj), nil); len(errs) > 0 {
				t.Errorf("rejected:\n%s", render(errs))
			}
		})
	}
}

// TestRulesGated checks that the rules do not run when a schema error is blocking (Required, NotSupported,
// TooLong, TooMany, TypeInvalid), as apiextensions' customResourceStrategy: one notice at no field replaces them.
func TestRulesGated(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, required: [name],
		x-kubernetes-validations: [{rule: "has(self.size) && self.size > 1", message: too small}],
		properties: {name: {type: string, maxLength: 3, pattern: "^[a-z]+$"}, size: {type: integer},
		mode: {type: string, enum: [A, B]}}}}}`)
	const notChecked = "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
	for _, tc := range []struct{ name, obj, want string }{
		{"no blocking error", `{spec: {name: ab, size: 1}}`, "spec: Invalid value: too small"},
		{"Invalid does not block", `{spec: {name: "A", size: 1}}`,
			"spec.name: Invalid value: \"A\": spec.name in body should match '^[a-z]+$'\nspec: Invalid value: too small"},
		{"Required blocks", `{spec: {size: 1}}`, "spec.name: Required value\n" + notChecked},
		{"TooLong blocks", `{spec: {name: abcd, size: 1}}`, "spec.name: Too long: may not be more than 3 bytes\n" + notChecked},
		{"NotSupported blocks", `{spec: {name: ab, size: 1, mode: C}}`,
			"spec.mode: Unsupported value: \"C\": supported values: \"A\", \"B\"\n" + notChecked},
		{"TypeInvalid blocks", `{spec: {name: ab, size: x}}`,
			"spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"\n" + notChecked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(s.Validate(ctx, decode(t, tc.obj), nil)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestListDuplicatesOnce checks that a repeated set item or list-map key is reported once, at its second
// occurrence, and that scalars compare as Go values, as upstream's listtype validation.
func TestListDuplicatesOnce(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, properties: {
		set: {type: array, x-kubernetes-list-type: set, items: {x-kubernetes-int-or-string: true}},
		objs: {type: array, x-kubernetes-list-type: set, items: {type: object, properties: {a: {type: integer}}}},
		byName: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name],
			items: {type: object, properties: {name: {type: string}, v: {type: integer}}}},
		byTwo: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [a, b],
			items: {type: object, properties: {a: {type: string}, b: {type: string}}}}}}}}`)
	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"a set item thrice", map[string]any{"set": []any{"x", "x", "y", "x"}}, `spec.set[1]: Duplicate value: "x"`},
		{"two repeated set items", map[string]any{"set": []any{"x", "y", "x", "y"}},
			"spec.set[2]: Duplicate value: \"x\"\nspec.set[3]: Duplicate value: \"y\""},
		{"1 and 1.0 differ in a set", map[string]any{"set": []any{int64(1), float64(1)}}, ""},
		{"objects compare as JSON", map[string]any{"objs": []any{map[string]any{"a": int64(1)}, map[string]any{"a": float64(1)}}},
			`spec.objs[1]: Duplicate value: {"a":1}`},
		{"a key thrice", map[string]any{"byName": []any{map[string]any{"name": "a"}, map[string]any{"name": "a", "v": int64(1)},
			map[string]any{"name": "a"}}}, `spec.byName[1]: Duplicate value: {"name":"a"}`},
		{"absent keys repeat", map[string]any{"byName": []any{map[string]any{"v": int64(1)}, map[string]any{"v": int64(2)}}},
			`spec.byName[1]: Duplicate value: {}`},
		{"two keys thrice", map[string]any{"byTwo": []any{map[string]any{"a": "x", "b": "y"}, map[string]any{"a": "x", "b": "y"},
			map[string]any{"a": "x", "b": "y"}}}, `spec.byTwo[1]: Duplicate value: {"a":"x","b":"y"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(s.Validate(ctx, map[string]any{"spec": tc.spec}, nil)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestTransitionRuleOnListMap checks that a list-type map compares equal to its old value whatever the order of its
// items (common.UnstructuredToVal's map list equality), so the usual immutability rule accepts a reordering.
func TestTransitionRuleOnListMap(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, properties: {
		ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name],
			x-kubernetes-validations: [{rule: "self == oldSelf", message: ports are immutable}],
			items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}}}}}}`)
	old := decode(t, `{spec: {ports: [{name: a, port: 1}, {name: b, port: 2}]}}`)
	for _, tc := range []struct{ name, obj, want string }{
		{"reordered", `{spec: {ports: [{name: b, port: 2}, {name: a, port: 1}]}}`, ""},
		{"changed", `{spec: {ports: [{name: b, port: 3}, {name: a, port: 1}]}}`, "spec.ports: Invalid value: ports are immutable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(s.Validate(ctx, decode(t, tc.obj), old)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

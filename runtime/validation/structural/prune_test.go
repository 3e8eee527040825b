package structural

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const pruneSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      name: {type: string}
      items:
        type: array
        items:
          type: object
          properties:
            a: {type: string}
      labels:
        type: object
        additionalProperties:
          type: object
          properties:
            v: {type: string}
      raw:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          known:
            type: object
            properties:
              k: {type: string}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        properties:
          spec:
            type: object
            properties:
              x: {type: string}
`

func TestPrune(t *testing.T) {
	s := mustNew(t, pruneSchema)
	for _, tc := range []struct {
		name       string
		obj, want  string
		wantPruned []string
	}{
		{"nothing to prune",
			`{apiVersion: v1, kind: K, metadata: {name: n, labels: {a: b}}, spec: {name: x}}`,
			`{apiVersion: v1, kind: K, metadata: {name: n, labels: {a: b}}, spec: {name: x}}`, nil},
		{"root keeps apiVersion, kind and metadata",
			`{apiVersion: v1, kind: K, metadata: {name: n, anything: 1}, extra: 1, status: {a: 1}}`,
			`{apiVersion: v1, kind: K, metadata: {name: n, anything: 1}}`, []string{"extra", "status"}},
		{"nested",
			`{spec: {name: x, foo: 1, bar: {baz: 2}}}`,
			`{spec: {name: x}}`, []string{"spec.bar", "spec.foo"}},
		{"arrays",
			`{spec: {items: [{a: x}, {a: y, b: z}]}}`,
			`{spec: {items: [{a: x}, {a: y}]}}`, []string{"spec.items[1].b"}},
		{"additionalProperties",
			`{spec: {labels: {one: {v: x, w: y}, two: {v: z}}}}`,
			`{spec: {labels: {one: {v: x}, two: {v: z}}}}`, []string{"spec.labels[one].w"}},
		{"preserve-unknown-fields keeps unknown but prunes known",
			`{spec: {raw: {anything: {deep: 1}, known: {k: a, other: b}}}}`,
			`{spec: {raw: {anything: {deep: 1}, known: {k: a}}}}`, []string{"spec.raw.known.other"}},
		{"embedded resources keep their meta fields",
			`{spec: {template: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {a: b}}, spec: {x: a, extra: b}, status: {}}}}`,
			`{spec: {template: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {a: b}}, spec: {x: a}}}}`,
			[]string{"spec.template.spec.extra", "spec.template.status"}},
		{"meta fields are pruned below the root",
			`{spec: {name: x, kind: K, metadata: {}}}`,
			`{spec: {name: x}}`, []string{"spec.kind", "spec.metadata"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := decode(t, tc.obj)
			pruned := s.Prune(obj)
			if diff := cmp.Diff(decode(t, tc.want), obj); diff != "" {
				t.Errorf("pruned object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPruned, pruned); diff != "" {
				t.Errorf("pruned paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreserveUnknownFieldsAtTheRoot(t *testing.T) {
	s := mustNew(t, `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {spec: {type: object, properties: {a: {type: string}}}}}`)
	obj := decode(t, `{extra: {x: 1}, spec: {a: x, b: y}}`)
	if got, want := s.Prune(obj), []string{"spec.b"}; !cmp.Equal(got, want) {
		t.Errorf("Prune = %q, want %q", got, want)
	}
	if diff := cmp.Diff(decode(t, `{extra: {x: 1}, spec: {a: x}}`), obj); diff != "" {
		t.Errorf("pruned object (-want +got):\n%s", diff)
	}
}

package structural

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultCronTab(t *testing.T) {
	s := mustNew(t, cronTab)
	obj := decode(t, `{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: my-new-cron-object}, spec: {image: my-awesome-cron-image}}`)
	s.Default(obj)
	want := decode(t, `{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: my-new-cron-object}, spec: {cronSpec: "5 0 * * *", image: my-awesome-cron-image, replicas: 1}}`)
	if diff := cmp.Diff(want, obj); diff != "" {
		t.Errorf("defaulted CronTab (-want +got):\n%s", diff)
	}
}

const defaultSchema = `
type: object
properties:
  spec:
    type: object
    default: {}
    properties:
      mode: {type: string, default: auto}
      note: {type: string, nullable: true, default: none}
      config:
        type: object
        default: {level: 1}
        properties:
          level: {type: integer}
          retry: {type: boolean, default: true}
      items:
        type: array
        items:
          type: object
          default: {size: 1}
          properties:
            size: {type: integer}
            unit: {type: string, default: Gi}
      pools:
        type: object
        additionalProperties:
          type: object
          properties:
            weight: {type: integer, default: 10}
`

func TestDefault(t *testing.T) {
	s := mustNew(t, defaultSchema)
	for _, tc := range []struct {
		name, obj, want string
	}{
		{"absent parent gets its default, then its fields' defaults", `{}`,
			`{spec: {mode: auto, note: none, config: {level: 1, retry: true}}}`},
		{"set values are kept", `{spec: {mode: manual, note: x, config: {level: 3, retry: false}}}`,
			`{spec: {mode: manual, note: x, config: {level: 3, retry: false}}}`},
		{"null is defaulted unless nullable", `{spec: {mode: null, note: null, config: null}}`,
			`{spec: {mode: auto, note: null, config: {level: 1, retry: true}}}`},
		{"array items", `{spec: {items: [{size: 2}, null, {unit: Mi}]}}`,
			`{spec: {mode: auto, note: none, config: {level: 1, retry: true}, items: [{size: 2, unit: Gi}, {size: 1, unit: Gi}, {unit: Mi}]}}`},
		{"additionalProperties values", `{spec: {pools: {a: {}, b: {weight: 1}}}}`,
			`{spec: {mode: auto, note: none, config: {level: 1, retry: true}, pools: {a: {weight: 10}, b: {weight: 1}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := decode(t, tc.obj)
			s.Default(obj)
			if diff := cmp.Diff(decode(t, tc.want), obj); diff != "" {
				t.Errorf("defaulted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultIsACopy checks that objects never share a default's value.
func TestDefaultIsACopy(t *testing.T) {
	s := mustNew(t, defaultSchema)
	a, b := decode(t, `{}`), decode(t, `{}`)
	s.Default(a)
	s.Default(b)
	a["spec"].(map[string]any)["config"].(map[string]any)["level"] = 99
	if got := b["spec"].(map[string]any)["config"].(map[string]any)["level"]; got != float64(1) {
		t.Errorf("changing one object's default changed another's: level = %v", got)
	}
	s2 := mustNew(t, defaultSchema)
	c := decode(t, `{}`)
	s2.Default(c)
	if got := c["spec"].(map[string]any)["config"].(map[string]any)["level"]; got != float64(1) {
		t.Errorf("the schema's default was modified: level = %v", got)
	}
}

// TestDefaultPrunesNulls removes nulls that are neither nullable nor defaulted, before defaulting, as
// kube-apiserver's decoding does, so they do not fail validation.
func TestDefaultPrunesNulls(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, properties: {
		image: {type: string}, note: {type: string, nullable: true}, mode: {type: string, default: auto},
		args: {type: array, items: {type: object, properties: {v: {type: string}}}},
		env: {type: object, additionalProperties: {type: string}}}}}}`)
	obj := decode(t, `{spec: {image: null, note: null, mode: null, args: [{v: null}], env: {a: null, b: x}, unknown: null}}`)
	s.Default(obj)
	want := decode(t, `{spec: {note: null, mode: auto, args: [{}], env: {b: x}, unknown: null}}`)
	if diff := cmp.Diff(want, obj); diff != "" {
		t.Errorf("defaulted (-want +got):\n%s", diff)
	}
	if errs := s.Validate(ctx, obj, nil); len(errs) != 0 {
		t.Errorf("defaulted object does not validate:\n%s", render(errs))
	}
}

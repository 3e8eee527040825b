package structural

import (
	"testing"
)

const celSchema = `
type: object
x-kubernetes-validations:
- rule: "!has(self.status) || self.status.ready <= self.spec.replicas"
  message: status.ready must not exceed spec.replicas
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.minReplicas <= self.replicas"
      messageExpression: "'minReplicas ' + string(self.minReplicas) + ' exceeds replicas ' + string(self.replicas)"
    - rule: "!has(self.owner) || self.owner != 'root'"
      reason: FieldValueForbidden
      fieldPath: .owner
      message: root may not own this
    properties:
      replicas: {type: integer}
      minReplicas: {type: integer}
      owner: {type: string}
      image:
        type: string
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: image is immutable
      port:
        x-kubernetes-int-or-string: true
        x-kubernetes-validations:
        - rule: "type(self) == int ? self > 0 : self.startsWith('http')"
      tags:
        type: array
        items:
          type: string
          x-kubernetes-validations:
          - rule: "self.size() <= 3"
      limits:
        type: object
        additionalProperties:
          type: number
          x-kubernetes-validations:
          - rule: "self >= 0.5"
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          properties:
            name: {type: string}
            number:
              type: integer
              x-kubernetes-validations:
              - rule: "self == oldSelf"
                message: port numbers are immutable
      hosts:
        type: array
        items:
          type: object
          properties:
            name:
              type: string
              x-kubernetes-validations:
              - rule: "self == oldSelf"
                message: not correlated, never run
  status:
    type: object
    properties:
      ready: {type: integer}
`

func TestValidateRules(t *testing.T) {
	s := mustNew(t, celSchema)
	valid := `{spec: {replicas: 3, minReplicas: 1, owner: alice, image: a, port: 8080, tags: [abc], limits: {cpu: 1}, ports: [{name: http, number: 80}], hosts: [{name: a}]}, status: {ready: 2}}`
	for _, tc := range []struct {
		name string
		obj  string
		old  string // "" on create
		want string
	}{
		{"valid create", valid, "", ""},
		{"valid update", valid, valid, ""},
		{"self on an object with messageExpression", `{spec: {replicas: 1, minReplicas: 2}}`, "",
			`spec: Invalid value: minReplicas 2 exceeds replicas 1`},
		{"root rule", `{spec: {replicas: 1, minReplicas: 1}, status: {ready: 2}}`, "",
			`<nil>: Invalid value: status.ready must not exceed spec.replicas`},
		{"reason and fieldPath", `{spec: {replicas: 1, minReplicas: 1, owner: root}}`, "",
			`spec.owner: Forbidden: root may not own this`},
		{"int-or-string as int", `{spec: {replicas: 1, minReplicas: 1, port: 0}}`, "",
			`spec.port: Invalid value: 0: failed rule: type(self) == int ? self > 0 : self.startsWith('http')`},
		{"int-or-string as string", `{spec: {replicas: 1, minReplicas: 1, port: ftp}}`, "",
			`spec.port: Invalid value: "ftp": failed rule: type(self) == int ? self > 0 : self.startsWith('http')`},
		{"array items", `{spec: {replicas: 1, minReplicas: 1, tags: [a, abcd]}}`, "",
			`spec.tags[1]: Invalid value: "abcd": failed rule: self.size() <= 3`},
		{"additionalProperties values", `{spec: {replicas: 1, minReplicas: 1, limits: {cpu: 1, mem: 0.25}}}`, "",
			`spec.limits[mem]: Invalid value: 0.25: failed rule: self >= 0.5`},
		{"transition rule skipped on create", `{spec: {replicas: 1, minReplicas: 1, image: b}}`, "", ""},
		{"transition rule on update", `{spec: {replicas: 1, minReplicas: 1, image: b}}`, `{spec: {replicas: 1, minReplicas: 1, image: a}}`,
			`spec.image: Invalid value: "b": image is immutable`},
		{"transition rule without old value", `{spec: {replicas: 1, minReplicas: 1, image: b}}`, `{spec: {replicas: 1, minReplicas: 1}}`, ""},
		{"list-type map items correlate by key", `{spec: {replicas: 1, minReplicas: 1, ports: [{name: https, number: 443}, {name: http, number: 81}]}}`,
			`{spec: {replicas: 1, minReplicas: 1, ports: [{name: http, number: 80}]}}`,
			`spec.ports[1].number: Invalid value: 81: port numbers are immutable`},
		{"atomic list items do not correlate", `{spec: {replicas: 1, minReplicas: 1, hosts: [{name: b}]}}`,
			`{spec: {replicas: 1, minReplicas: 1, hosts: [{name: a}]}}`, ""},
		{"evaluation error", `{spec: {replicas: 1}}`, "",
			`spec: Invalid value: "object": no such key: minReplicas evaluating rule: self.minReplicas <= self.replicas`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old map[string]any
			if tc.old != "" {
				old = decode(t, tc.old)
			}
			if got := render(s.Validate(ctx, decode(t, tc.obj), old)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestRuleNumbers types numbers by their schema, as upstream: a "number" holding an integral value is a double in
// CEL and an "integer" decoded as a float64 is an int.
func TestRuleNumbers(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object,
		x-kubernetes-validations: [{rule: "self.cpu * 2.0 <= 4.0 && self.count + 1 == 4 && self.limits.all(k, self.limits[k] < 10.0)"}],
		properties: {cpu: {type: number}, count: {type: integer}, limits: {type: object, additionalProperties: {type: number}}}}}}`)
	for _, obj := range []map[string]any{
		decode(t, `{spec: {cpu: 2, count: 3, limits: {a: 1}}}`),
		{"spec": map[string]any{"cpu": int64(2), "count": int64(3), "limits": map[string]any{"a": int64(1)}}},
		{"spec": map[string]any{"cpu": 1.5, "count": float64(3), "limits": map[string]any{"a": 9.5}}},
	} {
		if errs := s.Validate(ctx, obj, nil); len(errs) != 0 {
			t.Errorf("%v rejected:\n%s", obj, render(errs))
		}
	}
	bad := decode(t, `{spec: {cpu: 3, count: 3, limits: {}}}`)
	want := `spec: Invalid value: failed rule: self.cpu * 2.0 <= 4.0 && self.count + 1 == 4 && self.limits.all(k, self.limits[k] < 10.0)`
	if got := render(s.Validate(ctx, bad, nil)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestRuleLibraries validates with rules that call Kubernetes' CEL libraries (quantity,
// lists, url, ip), as CRDs written for kube-apiserver do: the schema compiles and the rules
// hold or fail as they would there.
func TestRuleLibraries(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, properties: {
		memory: {type: string, x-kubernetes-validations: [{rule: "quantity(self).isLessThan(quantity('64Gi'))", message: "memory must be under 64Gi"}]},
		replicas: {type: string, x-kubernetes-int-or-string: true, x-kubernetes-validations: [{rule: "type(self) == int || isQuantity(self)"}]},
		zones: {type: array, items: {type: string}, x-kubernetes-validations: [{rule: "self.isSorted()", message: "zones must be sorted"}]},
		endpoint: {type: string, x-kubernetes-validations: [{rule: "url(self).getScheme() == 'https' && !isIP(url(self).getHostname())"}]}}}}}`)
	for _, tc := range []struct{ obj, want string }{
		{`{spec: {memory: 16Gi, replicas: 3, zones: [a, b, c], endpoint: "https://db.example.com"}}`, ""},
		{`{spec: {memory: 128Gi, zones: [b, a]}}`,
			"spec.memory: Invalid value: \"128Gi\": memory must be under 64Gi\nspec.zones: Invalid value: zones must be sorted"},
		{`{spec: {endpoint: "https://10.0.0.1"}}`,
			`spec.endpoint: Invalid value: "https://10.0.0.1": failed rule: url(self).getScheme() == 'https' && !isIP(url(self).getHostname())`},
	} {
		if got := render(s.Validate(ctx, decode(t, tc.obj), nil)); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.obj, got, tc.want)
		}
	}
}

package structural

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// root is the path New reports errors under in these tests.
var root = field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

// decode decodes YAML (or JSON) into generic JSON, as a server decodes a CRD or a custom resource.
func decode(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("cannot decode %q: %v", doc, err)
	}
	return m
}

// mustNew builds the structural schema of the YAML doc, failing the test on violations.
func mustNew(t *testing.T, doc string) *Structural {
	t.Helper()
	s, errs := New(decode(t, doc), root)
	if len(errs) > 0 {
		t.Fatalf("New: unexpected errors:\n%s", render(errs))
	}
	return s
}

// render renders errors one per line as kube-apiserver prints them ("spec.x: Invalid value: ...: detail").
func render(errs field.ErrorList) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// cronTab is the CronTab schema of the Kubernetes documentation ("Extend the Kubernetes API with
// CustomResourceDefinitions"), with its defaults.
const cronTab = `
type: object
properties:
  spec:
    type: object
    properties:
      cronSpec:
        type: string
        pattern: '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'
        default: "5 0 * * *"
      image:
        type: string
      replicas:
        type: integer
        minimum: 1
        maximum: 10
        default: 1
  status:
    type: object
    properties:
      replicas:
        type: integer
      labelSelector:
        type: string
`

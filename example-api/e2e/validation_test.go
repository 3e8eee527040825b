package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// invalidDatabase is a v1 Database that breaks five of the markers of
// example-api/apis/db/v1/types.go and the hand-written db.ValidateDatabase hook.
const invalidDatabase = `apiVersion: db.example.com/v1
kind: Database
metadata:
  name: broken
  namespace: default
spec:
  engine: oracle
  version: "sixteen"
  replicas: 12
  parameters:
%s
  backup:
    schedule: daily
    retentionDays: -1
`

// invalidDatabaseCauses are the causes the server reports for invalidDatabase, in order: the
// generated checks first (in field order; the unsupported engine keeps the CEL rules from
// running, as on a CRD, which says so at no field), then the hand-written hook.
var invalidDatabaseCauses = []string{
	`FieldValueNotSupported spec.engine: Unsupported value: "oracle": supported values: "postgres", "mysql"`,
	`FieldValueInvalid spec.version: Invalid value: "sixteen": spec.version in body should match '^[0-9]+(\.[0-9]+)*$'`,
	`FieldValueInvalid spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 9`,
	`FieldValueTooMany spec.parameters: Too many: 65: must have at most 64 items`,
	`FieldValueInvalid spec.backup.retentionDays: Invalid value: -1: spec.backup.retentionDays in body should be greater than or equal to 1`,
	`FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
	`FieldValueInvalid spec.backup.schedule: Invalid value: "daily": must be a cron expression of five fields, e.g. "0 3 * * *"`,
}

// writeYAML writes doc to a temporary file and returns its path.
func writeYAML(t *testing.T, name, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustUnstructured reads the YAML manifest at path into an object for the dynamic client.
func mustUnstructured(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		t.Fatalf("cannot parse %s: %v", path, err)
	}
	return obj
}

// invalidCauses returns the causes of err, which must be a 422 Invalid metav1.Status, as
// "type field: message" lines in the server's order.
func invalidCauses(t *testing.T, what string, err error) []string {
	t.Helper()
	wantStatus(t, what, err, 422, metav1.StatusReasonInvalid)
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("%s: the 422 has no details: %v", what, err)
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		out = append(out, fmt.Sprintf("%s %s: %s", c.Type, c.Field, c.Message))
	}
	return out
}

// TestKubectlValidation shows the generated validation end to end with /usr/bin/kubectl and
// client-go: an invalid Database is refused with 422 Invalid and one cause per violation,
// which kubectl prints; changing spec.engine is refused by its CEL rule; a valid Database
// is accepted; v1alpha1 is validated with its own markers.
func TestKubectlValidation(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var params strings.Builder
	for i := range 65 {
		fmt.Fprintf(&params, "    p%02d: \"x\"\n", i)
	}
	bad := writeYAML(t, "broken", fmt.Sprintf(invalidDatabase, strings.TrimSuffix(params.String(), "\n")))

	out, err := s.kubectl(t, "apply", "-f", bad)
	t.Logf("kubectl apply -f broken.yaml\n%s", out)
	if err == nil {
		t.Fatalf("kubectl apply of an invalid Database succeeded:\n%s", out)
	}
	if !strings.Contains(out, `The Database "broken" is invalid: `+"\n* spec.engine") {
		t.Errorf("kubectl did not report the Database as invalid:\n%s", out)
	}
	for _, want := range []string{
		`* spec.engine: Unsupported value: "oracle": supported values: "postgres", "mysql"`,
		`* spec.version: Invalid value: "sixteen": spec.version in body should match '^[0-9]+(\.[0-9]+)*$'`,
		`* spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 9`,
		`* spec.parameters: Too many: 65: must have at most 64 items`,
		`* spec.backup.retentionDays: Invalid value: -1: spec.backup.retentionDays in body should be greater than or equal to 1`,
		`* spec.backup.schedule: Invalid value: "daily": must be a cron expression of five fields`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl output lacks the cause %q:\n%s", want, out)
		}
	}
	if out, err := s.kubectl(t, "get", "database", "broken"); err == nil {
		t.Errorf("the invalid Database was stored:\n%s", out)
	}

	// The same object through client-go: a metav1.Status with one cause per violation.
	obj, err := s.dynamic.Resource(databasesV1).Namespace("default").Create(ctx, mustUnstructured(t, bad), metav1.CreateOptions{})
	if err == nil {
		t.Fatalf("create of an invalid Database succeeded: %v", obj)
	}
	if diff := cmp.Diff(invalidDatabaseCauses, invalidCauses(t, "create broken", err)); diff != "" {
		t.Errorf("causes differ (-want +got):\n%s", diff)
	}

	// A valid Database passes, and its engine cannot change afterwards.
	s.mustKubectl(t, "apply", "-f", filepath.Join(samplesDir, "db_v1_database.yaml"))
	out, err = s.kubectl(t, "patch", "database", "orders", "--type=merge", "-p", `{"spec":{"engine":"mysql"}}`)
	if err == nil || !strings.Contains(out, `The Database "orders" is invalid: spec.engine: Invalid value: "mysql": engine is immutable`) {
		t.Errorf("changing spec.engine: err=%v, want \"engine is immutable\"; output:\n%s", err, out)
	}
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.engine}"); got != "postgres" {
		t.Errorf("spec.engine after the refused patch = %q, want postgres", got)
	}
	// Other fields still change; an unchanged engine passes its rule.
	s.mustKubectl(t, "patch", "database", "orders", "--type=merge", "-p", `{"spec":{"replicas":3}}`)
	// The scale subresource writes spec.replicas, so the spec's markers hold there too.
	out, err = s.kubectl(t, "scale", "database", "orders", "--replicas=12")
	if err == nil || !strings.Contains(out, `spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 9`) {
		t.Errorf("scaling to 12: err=%v, want the Maximum=9 error; output:\n%s", err, out)
	}
	// The status subresource: +listType=map with +listMapKey=type makes condition types unique.
	cond := `{"type":"Ready","status":"True","reason":"Up","message":"","lastTransitionTime":"2026-01-02T15:04:05Z"}`
	out, err = s.kubectl(t, "patch", "database", "orders", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[`+cond+`,`+cond+`]}}`)
	if err == nil || !strings.Contains(out, `status.conditions[1]: Duplicate value: {"type":"Ready"}`) {
		t.Errorf("duplicate condition types: err=%v, want a Duplicate error; output:\n%s", err, out)
	}
	s.mustKubectl(t, "patch", "database", "orders", "--subresource=status", "--type=merge", "-p", `{"status":{"conditions":[`+cond+`]}}`)
	// The hand-written hook runs on update too.
	out, err = s.kubectl(t, "patch", "database", "orders", "--type=merge", "-p", `{"spec":{"backup":{"schedule":"nightly"}}}`)
	if err == nil || !strings.Contains(out, `spec.backup.schedule: Invalid value: "nightly"`) {
		t.Errorf("patching a bad schedule: err=%v, want the hook's error; output:\n%s", err, out)
	}

	testV1alpha1Validation(ctx, t, s)
}

// testV1alpha1Validation checks that v1alpha1 requests are validated with v1alpha1's markers,
// reported with v1alpha1's field paths (sizeGiB exists only there), and that the engine rule
// holds there too.
func testV1alpha1Validation(ctx context.Context, t *testing.T, s *apiServer) {
	t.Helper()
	bad := writeYAML(t, "small", `apiVersion: db.example.com/v1alpha1
kind: Database
metadata:
  name: small
  namespace: default
spec:
  engine: mysql
  sizeGiB: -5
  replicas: 10
`)
	out, err := s.kubectl(t, "apply", "-f", bad)
	t.Logf("kubectl apply -f small.yaml (v1alpha1)\n%s", out)
	for _, want := range []string{
		`spec.sizeGiB: Invalid value: -5: spec.sizeGiB in body should be greater than or equal to 1`,
		`spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 9`,
	} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("v1alpha1 apply: err=%v, output lacks %q:\n%s", err, want, out)
		}
	}

	dbs := s.dynamic.Resource(databasesV1alpha1).Namespace("default")
	_, err = dbs.Create(ctx, mustUnstructured(t, bad), metav1.CreateOptions{})
	want := []string{
		`FieldValueInvalid spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 9`,
		`FieldValueInvalid spec.sizeGiB: Invalid value: -5: spec.sizeGiB in body should be greater than or equal to 1`,
	}
	if diff := cmp.Diff(want, invalidCauses(t, "create v1alpha1 small", err)); diff != "" {
		t.Errorf("v1alpha1 causes differ (-want +got):\n%s", diff)
	}

	s.mustKubectl(t, "apply", "-f", filepath.Join(samplesDir, "db_v1alpha1_database.yaml"))
	const name = "inventory" // the name in db_v1alpha1_database.yaml
	out, err = s.kubectl(t, "patch", "databases.v1alpha1.db.example.com", name, "--type=merge", "-p", `{"spec":{"engine":"postgres","sizeGiB":30}}`)
	if err == nil || !strings.Contains(out, "engine is immutable") {
		t.Errorf("changing spec.engine through v1alpha1: err=%v, want \"engine is immutable\"; output:\n%s", err, out)
	}
	s.mustKubectl(t, "patch", "databases.v1alpha1.db.example.com", name, "--type=merge", "-p", `{"spec":{"sizeGiB":30}}`)
	if got := s.mustKubectl(t, "get", "databases.v1alpha1.db.example.com", name, "-o", "jsonpath={.spec.sizeGiB}"); got != "30" {
		t.Errorf("sizeGiB after a valid v1alpha1 patch = %q, want 30", got)
	}
}

// TestBackupNameFormat checks a string format marker (k8s-long-name) through the server.
func TestBackupNameFormat(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	backups := s.dynamic.Resource(schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "backups"}).Namespace("default")
	doc := `apiVersion: db.example.com/v1
kind: Backup
metadata:
  name: weekly
spec:
  databaseName: %s
`
	_, err := backups.Create(ctx, mustUnstructured(t, writeYAML(t, "bad", fmt.Sprintf(doc, "Orders_DB"))), metav1.CreateOptions{})
	causes := invalidCauses(t, "create backup Orders_DB", err)
	// kube-apiserver's wording for a CRD schema's format.
	want := `FieldValueTypeInvalid spec.databaseName: Invalid value: "Orders_DB": spec.databaseName in body must be of type k8s-long-name: "Orders_DB"`
	if len(causes) != 1 || causes[0] != want {
		t.Errorf("causes = %q, want %q", causes, want)
	}
	if _, err := backups.Create(ctx, mustUnstructured(t, writeYAML(t, "good", fmt.Sprintf(doc, "orders.db"))), metav1.CreateOptions{}); err != nil {
		t.Errorf("create of a valid Backup: %v", err)
	}
}

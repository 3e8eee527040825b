package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// TestRequiredAsACustomResource checks, through the server, that the example API's markers mean
// what they mean in a CRD (controller-gen's schema, the API server's validation of it):
//
//   - a required struct (Database.spec: no omitempty, no +optional) left out of the request (a
//     create, a server-side apply that creates) is Required value, as spec.jobTemplate of a
//     kubebuilder CronJob; so is a required string removed by a patch;
//   - a required string sent as "" is present: its other markers judge it (MinLength), not
//     Required value; the causes are the CRD API server's, in its words;
//   - a create's status is dropped before it is validated, as the API server drops a custom
//     resource's when the status subresource is on: status markers do not reject a create;
//   - the markers of metav1.Condition, a type of another module, are enforced on status.
func TestRequiredAsACustomResource(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	// notChecked is the cause a CRD's validation adds when errors kept its CEL rules from
	// running (Database has rules).
	const notChecked = "FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := s.dynamic.Resource(databasesV1).Namespace("default")
	backups := s.dynamic.Resource(schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "backups"}).Namespace("default")
	object := func(kind, name string, fields map[string]any) *unstructured.Unstructured {
		o := map[string]any{"apiVersion": "db.example.com/v1", "kind": kind, "metadata": map[string]any{"name": name}}
		for k, v := range fields {
			o[k] = v
		}
		return &unstructured.Unstructured{Object: o}
	}

	_, err := dbs.Create(ctx, object("Database", "no-spec", nil), metav1.CreateOptions{})
	if diff := cmp.Diff([]string{"FieldValueRequired spec: Required value", notChecked}, invalidCauses(t, "a Database without spec", err)); diff != "" {
		t.Errorf("a Database without spec (-want +got):\n%s", diff)
	}
	// A server-side apply that creates the object: the configuration is what the client wrote.
	_, err = dbs.Apply(ctx, "applied", object("Database", "applied", nil), metav1.ApplyOptions{FieldManager: "e2e"})
	if diff := cmp.Diff([]string{"FieldValueRequired spec: Required value", notChecked}, invalidCauses(t, "an apply without spec", err)); diff != "" {
		t.Errorf("an apply without spec (-want +got):\n%s", diff)
	}
	_, err = dbs.Create(ctx, object("Database", "empty-spec", map[string]any{"spec": map[string]any{}}), metav1.CreateOptions{})
	if diff := cmp.Diff([]string{"FieldValueRequired spec.engine: Required value", notChecked}, invalidCauses(t, "a Database with spec {}", err)); diff != "" {
		t.Errorf("a Database with spec {} (-want +got):\n%s", diff)
	}

	// A required string present as "" is judged by its MinLength, not reported as missing.
	_, err = backups.Create(ctx, object("Backup", "nameless", map[string]any{"spec": map[string]any{"databaseName": ""}}), metav1.CreateOptions{})
	causes := invalidCauses(t, `a Backup with databaseName ""`, err)
	if len(causes) == 0 || causes[0] != `FieldValueInvalid spec.databaseName: Invalid value: "": spec.databaseName in body should be at least 1 chars long` { // then its format
		t.Errorf(`a Backup with databaseName "": causes %q, want spec.databaseName too short`, causes)
	}
	_, err = backups.Create(ctx, object("Backup", "nameless", map[string]any{"spec": map[string]any{}}), metav1.CreateOptions{})
	if diff := cmp.Diff([]string{"FieldValueRequired spec.databaseName: Required value"}, invalidCauses(t, "a Backup without databaseName", err)); diff != "" {
		t.Errorf("a Backup without databaseName (-want +got):\n%s", diff)
	}

	// The status of a create is dropped, not validated: a condition breaking metav1.Condition's
	// markers does not reject it.
	badCondition := map[string]any{"type": "Ready", "status": "Maybe", "reason": "", "message": "", "lastTransitionTime": "2026-01-02T15:04:05Z"}
	created, err := dbs.Create(ctx, object("Database", "orders", map[string]any{
		"spec":   map[string]any{"engine": "postgres"},
		"status": map[string]any{"phase": "Ready", "conditions": []any{badCondition}},
	}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create with a status the status subresource would refuse: %v", err)
	}
	if status, found := created.Object["status"]; found && len(status.(map[string]any)) != 0 {
		t.Errorf("the created Database kept status %v, want it dropped", status)
	}

	// metav1.Condition's markers (+kubebuilder:validation:Enum=True;False;Unknown on status,
	// MinLength=1 on reason) hold on the status subresource.
	created.Object["status"] = map[string]any{"conditions": []any{badCondition}}
	_, err = dbs.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	got := invalidCauses(t, "a condition with status Maybe and reason \"\"", err)
	want := []string{
		`FieldValueNotSupported status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"`,
		`FieldValueInvalid status.conditions[0].reason: Invalid value: "": status.conditions[0].reason in body should be at least 1 chars long`,
		// minLength fails first, so the pattern is not checked (kube-openapi's string validator).
		notChecked,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metav1.Condition's markers on status (-want +got):\n%s", diff)
	}

	// A merge patch removing spec.engine leaves it out: Required value.
	_, err = dbs.Patch(ctx, "orders", types.MergePatchType, []byte(`{"spec":{"engine":null}}`), metav1.PatchOptions{})
	if diff := cmp.Diff([]string{"FieldValueRequired spec.engine: Required value", notChecked}, invalidCauses(t, "a patch removing spec.engine", err)); diff != "" {
		t.Errorf("a patch removing spec.engine (-want +got):\n%s", diff)
	}
}

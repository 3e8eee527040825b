package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestKubectlScale drives the Database scale subresource (autoscaling/v1 Scale mapped onto
// spec.replicas and status.readyReplicas) with kubectl scale, kubectl patch --subresource and
// a raw GET, checks discovery lists databases/scale as autoscaling/v1 Scale, and that a stale
// resourceVersion on a Scale is a 409.
func TestKubectlScale(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", samplesDir)

	var discovery metav1.APIResourceList
	if err := json.Unmarshal([]byte(s.mustKubectl(t, "get", "--raw", "/apis/db.example.com/v1")), &discovery); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range discovery.APIResources {
		if r.Name == "databases/scale" {
			found = true
			if r.Group != "autoscaling" || r.Version != "v1" || r.Kind != "Scale" || !r.Namespaced ||
				strings.Join(r.Verbs, ",") != "get,patch,update" {
				t.Errorf("discovery of databases/scale: %+v", r)
			}
		}
	}
	if !found {
		t.Errorf("discovery of db.example.com/v1 lacks databases/scale: %+v", discovery.APIResources)
	}

	// OpenAPI describes the subresource with kube's operation names and the Scale schema.
	raw, err := s.kubectl(t, "get", "--raw", "/openapi/v2")
	if err != nil {
		t.Fatalf("GET /openapi/v2: %v\n%s", err, raw)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	paths, _ := doc["paths"].(map[string]any)
	op := paths["/apis/db.example.com/v1/namespaces/{namespace}/databases/{name}/scale"]
	if got := lookup(asMap(op), "put.operationId"); got != "replaceDbExampleComV1NamespacedDatabaseScale" {
		t.Errorf("OpenAPI operationId of PUT databases/scale = %v", got)
	}
	definitions, _ := doc["definitions"].(map[string]any)
	scaleDef := asMap(definitions["io.k8s.api.autoscaling.v1.Scale"])
	if gvks, _ := scaleDef["x-kubernetes-group-version-kind"].([]any); len(gvks) != 1 ||
		lookup(asMap(gvks[0]), "group") != "autoscaling" || lookup(asMap(gvks[0]), "kind") != "Scale" {
		t.Errorf("OpenAPI definition io.k8s.api.autoscaling.v1.Scale: %v", scaleDef)
	}

	const scalePath = "/apis/db.example.com/v1/namespaces/default/databases/orders/scale"
	var scale map[string]any
	if err := json.Unmarshal([]byte(s.mustKubectl(t, "get", "--raw", scalePath)), &scale); err != nil {
		t.Fatal(err)
	}
	uid := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.metadata.uid}")
	for path, want := range map[string]any{
		"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata.name": "orders", "metadata.namespace": "default", "metadata.uid": uid,
		"spec.replicas": float64(1), "status.replicas": float64(0),
	} {
		if got := lookup(scale, path); got != want {
			t.Errorf("GET scale: %s = %#v, want %#v", path, got, want)
		}
	}

	if out := s.mustKubectl(t, "scale", "database", "orders", "--replicas=4"); !strings.Contains(out, "database.db.example.com/orders scaled") {
		t.Errorf("kubectl scale printed:\n%s", out)
	}
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.replicas} {.spec.engine} {.metadata.generation}"); got != "4 postgres 2" {
		t.Errorf("after kubectl scale: replicas, engine, generation = %q, want \"4 postgres 2\"", got)
	}
	// --current-replicas makes kubectl read the Scale and PUT it back with its resourceVersion.
	s.mustKubectl(t, "scale", "database", "orders", "--current-replicas=4", "--replicas=5")
	s.mustKubectl(t, "patch", "database", "orders", "--subresource=scale", "--type=merge", "-p", `{"spec":{"replicas":6}}`)
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.replicas}"); got != "6" {
		t.Errorf("after kubectl scale and patch of the scale: replicas = %q, want 6", got)
	}
	// The same subresource through v1alpha1.
	s.mustKubectl(t, "scale", "databases.v1alpha1.db.example.com", "inventory", "--replicas=2")
	if got := s.mustKubectl(t, "get", "database", "inventory", "-o", "jsonpath={.spec.replicas}"); got != "2" {
		t.Errorf("after scaling inventory through v1alpha1: replicas = %q, want 2", got)
	}

	// A Scale with a stale resourceVersion is a 409, one with negative replicas a 422.
	ctx := context.Background()
	dbs := s.dynamic.Resource(databasesV1).Namespace("default")
	current, err := dbs.Get(ctx, "orders", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatalf("GET scale: %v", err)
	}
	stale := current.DeepCopy()
	if _, err := dbs.Patch(ctx, "orders", "application/merge-patch+json", []byte(`{"spec":{"replicas":7}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatalf("PATCH scale: %v", err)
	}
	if err := unstructured.SetNestedField(stale.Object, int64(8), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	_, err = dbs.Update(ctx, stale, metav1.UpdateOptions{}, "scale")
	wantStatus(t, "PUT of a stale Scale", err, http.StatusConflict, metav1.StatusReasonConflict)
	fresh, err := dbs.Get(ctx, "orders", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(fresh.Object, int64(-1), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if _, err = dbs.Update(ctx, fresh, metav1.UpdateOptions{}, "scale"); !apierrors.IsInvalid(err) {
		t.Errorf("PUT of a Scale with negative replicas: got %v, want 422 Invalid", err)
	}
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.replicas}"); got != "7" {
		t.Errorf("after a rejected scale update: replicas = %q, want 7", got)
	}
}

// TestKubectlFieldSelectorSelectableField lists databases by spec.engine, declared with
// +kubebuilder:selectablefield, in both versions; a field that is not selectable is a 400.
func TestKubectlFieldSelectorSelectableField(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", samplesDir)
	for _, tc := range []struct{ resource, selector, want string }{
		{"databases", "spec.engine=mysql", "database.db.example.com/inventory"},
		{"databases", "spec.engine=postgres", "database.db.example.com/orders"},
		{"databases", "spec.engine!=postgres,metadata.name=inventory", "database.db.example.com/inventory"},
		{"databases.v1alpha1.db.example.com", "spec.engine=mysql", "database.db.example.com/inventory"},
	} {
		got := strings.TrimSpace(s.mustKubectl(t, "get", tc.resource, "--field-selector", tc.selector, "-o", "name"))
		if got != tc.want {
			t.Errorf("kubectl get %s --field-selector %s: got %q, want %q", tc.resource, tc.selector, got, tc.want)
		}
	}
	out, err := s.kubectl(t, "get", "databases", "--field-selector", "spec.version=16.2")
	if err == nil || !strings.Contains(out, "field label not supported: spec.version") {
		t.Errorf("a field that is not selectable: err=%v, output:\n%s", err, out)
	}
}

// asMap returns v as a JSON object, or nil.
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

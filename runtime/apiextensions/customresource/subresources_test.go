package customresource

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// createCronTab creates a CronTab in namespace with spec (JSON members) and returns it.
func (f *fixture) createCronTab(t *testing.T, namespace, name, spec string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(cronTabJSON("v1", name, spec))); err != nil {
		t.Fatal(err)
	}
	out, err := f.dyn.Resource(cronTabs).Namespace(namespace).Create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s/%s: %v", namespace, name, err)
	}
	return out
}

// TestStatusSubresource checks the main resource ignores status and /status changes only
// status, without a generation bump.
func TestStatusSubresource(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ns := f.dyn.Resource(cronTabs).Namespace("default")
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c"},` +
		`"spec":{"cronSpec":"* * * * */5","replicas":1},"status":{"replicas":7}}`)); err != nil {
		t.Fatal(err)
	}
	created, err := ns.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found := created.Object["status"]; found {
		t.Errorf("create kept status: %v", created.Object["status"])
	}

	if err := unstructured.SetNestedField(created.Object, int64(3), "status", "replicas"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(created.Object, "x", "spec", "image"); err != nil {
		t.Fatal(err)
	}
	withStatus, err := ns.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if r, _, _ := unstructured.NestedInt64(withStatus.Object, "status", "replicas"); r != 3 {
		t.Errorf("status.replicas = %d, want 3", r)
	}
	if image, found, _ := unstructured.NestedString(withStatus.Object, "spec", "image"); found || withStatus.GetGeneration() != 1 {
		t.Errorf("/status changed spec.image to %q or generation to %d", image, withStatus.GetGeneration())
	}

	if err := unstructured.SetNestedField(withStatus.Object, int64(9), "status", "replicas"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(withStatus.Object, int64(2), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	updated, err := ns.Update(ctx, withStatus, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if r, _, _ := unstructured.NestedInt64(updated.Object, "status", "replicas"); r != 3 || updated.GetGeneration() != 2 {
		t.Errorf("main resource update: status.replicas = %d (want 3 kept), generation %d (want 2)", r, updated.GetGeneration())
	}
	if got := f.admitted.seen(); !slices.Contains(got, "UPDATE crontabs/status CronTab") {
		t.Errorf("admission saw %q, want a status update", got)
	}
}

// TestScaleSubresource reads and writes autoscaling/v1 Scale through the JSON paths.
func TestScaleSubresource(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ns := f.dyn.Resource(cronTabs).Namespace("default")
	created := f.createCronTab(t, "default", "c", `"cronSpec":"* * * * */5","replicas":2`)
	status := created.DeepCopy()
	if err := unstructured.SetNestedMap(status.Object, map[string]any{"replicas": int64(1), "labelSelector": "app=c"}, "status"); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.UpdateStatus(ctx, status, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	path := "/apis/stable.example.com/v1/namespaces/default/crontabs/c/scale"
	code, _, data := f.do(t, http.MethodGet, path, "", "")
	scale := decode(t, data)
	spec, _ := scale["spec"].(map[string]any)
	st, _ := scale["status"].(map[string]any)
	if code != http.StatusOK || scale["kind"] != "Scale" || scale["apiVersion"] != "autoscaling/v1" ||
		spec["replicas"] != float64(2) || st["replicas"] != float64(1) || st["selector"] != "app=c" {
		t.Fatalf("GET scale: %d %s", code, data)
	}
	code, _, data = f.do(t, http.MethodPut, path, "application/json",
		`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"c","namespace":"default"},"spec":{"replicas":5}}`)
	if code != http.StatusOK || decode(t, data)["spec"].(map[string]any)["replicas"] != float64(5) {
		t.Fatalf("PUT scale: %d %s", code, data)
	}
	got, err := ns.Get(ctx, "c", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 5 || got.GetGeneration() != 2 {
		t.Errorf("after scaling: spec.replicas = %d, generation %d", r, got.GetGeneration())
	}
	// The schema's maximum still applies through the scale subresource.
	code, _, data = f.do(t, http.MethodPatch, path, "application/merge-patch+json", `{"spec":{"replicas":11}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(data), "spec.replicas") {
		t.Errorf("PATCH scale beyond maximum: %d %s", code, data)
	}
}

// TestPrinterColumnsAndFieldSelectors asks for a Table, as kubectl get does, and selects on
// a selectable field.
func TestPrinterColumnsAndFieldSelectors(t *testing.T) {
	f := newFixture(t)
	f.createCronTab(t, "default", "a", `"cronSpec":"* * * * */5","replicas":2,"image":"one"`)
	f.createCronTab(t, "default", "b", `"cronSpec":"* * * * */1","replicas":3,"image":"two"`)
	code, _, data := f.do(t, http.MethodGet, "/apis/stable.example.com/v1/namespaces/default/crontabs", "", "",
		"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	table := decode(t, data)
	var headers []string
	for _, c := range table["columnDefinitions"].([]any) {
		headers = append(headers, c.(map[string]any)["name"].(string))
	}
	rows, _ := table["rows"].([]any)
	if code != http.StatusOK || table["kind"] != "Table" || !slices.Equal(headers, []string{"Name", "Spec", "Replicas", "Age"}) || len(rows) != 2 {
		t.Fatalf("table: %d %s", code, data)
	}
	cells := rows[1].(map[string]any)["cells"].([]any)
	if cells[0] != "b" || cells[1] != "* * * * */1" || cells[2] != float64(3) {
		t.Errorf("row b = %v", cells)
	}

	list, err := f.dyn.Resource(cronTabs).Namespace("default").List(context.Background(), metav1.ListOptions{FieldSelector: "spec.image=two"})
	if err != nil {
		t.Fatalf("list by spec.image: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetName() != "b" {
		t.Errorf("spec.image=two selected %d items", len(list.Items))
	}
	if _, err := f.dyn.Resource(cronTabs).List(context.Background(), metav1.ListOptions{FieldSelector: "spec.cronSpec=x"}); !apierrors.IsBadRequest(err) {
		t.Errorf("selecting on a field that is not selectable: %v, want 400", err)
	}
}

// TestRemoveAndDeletes checks DeleteNamespaceContent, DeleteAll and Remove.
func TestRemoveAndDeletes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.createCronTab(t, "a", "one", `"cronSpec":"* * * * */5"`)
	f.createCronTab(t, "b", "two", `"cronSpec":"* * * * */5"`)
	kept := f.createCronTab(t, "b", "kept", `"cronSpec":"* * * * */5"`)
	kept.SetFinalizers([]string{"example.com/keep"})
	if _, err := f.dyn.Resource(cronTabs).Namespace("b").Update(ctx, kept, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	if left, err := f.h.DeleteNamespaceContent(ctx, "a"); err != nil || left != 0 {
		t.Errorf("DeleteNamespaceContent(a) = %d, %v; want 0", left, err)
	}
	if list, err := f.dyn.Resource(cronTabs).List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 2 {
		t.Fatalf("after deleting namespace a: %v items, %v", len(list.Items), err)
	}
	if left, err := f.h.DeleteAll(ctx, "stable.example.com", "crontabs"); err != nil || left != 1 {
		t.Errorf("DeleteAll = %d, %v; want 1 left (finalizer)", left, err)
	}
	got, err := f.dyn.Resource(cronTabs).Namespace("b").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || got.GetDeletionTimestamp() == nil {
		t.Errorf("kept = %v, %v; want it marked deleted", got, err)
	}

	w, err := f.dyn.Resource(cronTabs).Watch(ctx, metav1.ListOptions{ResourceVersion: got.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	f.h.Remove("stable.example.com", "crontabs")
	timeout := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-w.ResultChan():
		case <-timeout:
			t.Fatal("the watch did not end after Remove")
		}
	}
	code, _, data := f.do(t, http.MethodGet, "/apis/stable.example.com/v1/namespaces/b/crontabs", "", "")
	if st := decode(t, data); code != http.StatusNotFound || st["kind"] != "Status" {
		t.Errorf("after Remove: %d %s", code, data)
	}
	if code, _, _ := f.do(t, http.MethodGet, "/apis/stable.example.com", "", ""); code != http.StatusNotFound {
		t.Errorf("group discovery after Remove: %d", code)
	}
	if groups := f.h.APIGroups(); len(groups) != 0 {
		t.Errorf("APIGroups after Remove = %v", groups)
	}
	if _, err := f.h.DeleteAll(ctx, "stable.example.com", "crontabs"); err == nil {
		t.Error("DeleteAll of a removed resource succeeded")
	}
}

// TestSeveralDefinitionsInOneGroup serves a cluster-scoped, schemaless Gadget next to
// CronTab, checks both are served and discovered, the schemaless one keeps every field,
// Remove of one leaves the other, and other groups reach NotFound.
func TestSeveralDefinitionsInOneGroup(t *testing.T) {
	f := newFixture(t)
	gadget := Definition{
		// A listKind that is not <Kind>List, as a CRD may name it.
		Group: "stable.example.com", Names: Names{Plural: "gadgets", Kind: "Gadget", ListKind: "GadgetCollection"},
		Versions: []Version{{Name: "v1"}}, StorageVersion: "v1", UID: "uid-2",
	}
	if err := f.h.Set(gadget); err != nil {
		t.Fatal(err)
	}
	code, _, data := f.do(t, http.MethodPost, "/apis/stable.example.com/v1/gadgets", "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"Gadget","metadata":{"name":"g"},"anything":{"goes":[1,"x"]}}`)
	if obj := decode(t, data); code != http.StatusCreated || obj["anything"] == nil || obj["metadata"].(map[string]any)["namespace"] != nil {
		t.Fatalf("create gadget: %d %s", code, data)
	}
	if code, _, data := f.do(t, http.MethodGet, "/apis/stable.example.com/v1/gadgets", "", ""); code != http.StatusOK || decode(t, data)["kind"] != "GadgetCollection" {
		t.Errorf("list gadgets: %d %s, want a GadgetCollection", code, data)
	}
	f.createCronTab(t, "default", "c", `"cronSpec":"* * * * */5"`)
	list, err := f.disc.ServerResourcesForGroupVersion("stable.example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.APIResources {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"crontabs", "crontabs/scale", "crontabs/status", "gadgets"}) {
		t.Errorf("resources = %q", names)
	}
	// Cluster-scoped objects are not namespace content.
	if left, err := f.h.DeleteNamespaceContent(context.Background(), "default"); err != nil || left != 0 {
		t.Errorf("DeleteNamespaceContent = %d, %v", left, err)
	}
	if code, _, _ := f.do(t, http.MethodGet, "/apis/stable.example.com/v1/gadgets/g", "", ""); code != http.StatusOK {
		t.Errorf("gadget after DeleteNamespaceContent: %d", code)
	}

	f.h.Remove("stable.example.com", "crontabs")
	if code, _, _ := f.do(t, http.MethodGet, "/apis/stable.example.com/v1/namespaces/default/crontabs", "", ""); code != http.StatusNotFound {
		t.Errorf("crontabs after Remove: %d", code)
	}
	if code, _, _ := f.do(t, http.MethodGet, "/apis/stable.example.com/v1/gadgets/g", "", ""); code != http.StatusOK {
		t.Errorf("gadget after removing crontabs: %d", code)
	}
	if groups := f.h.APIGroups(); len(groups) != 1 || len(groups[0].Versions) != 1 {
		t.Errorf("APIGroups = %+v, want the group with v1 only", groups)
	}
}

// TestNotFoundDelegate checks requests outside the served groups and versions go to
// Config.NotFound.
func TestNotFoundDelegate(t *testing.T) {
	f := newFixture(t)
	h, err := NewHandler(Config{Storage: f.h.cfg.Storage, NotFound: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Set(cronTabDefinition(t, false)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"/apis/other.example.com/v1/things":                       http.StatusTeapot,
		"/apis/stable.example.com/v2/crontabs":                    http.StatusTeapot,
		"/healthz":                                                http.StatusTeapot,
		"/apis/stable.example.com/v1/namespaces/default/crontabs": http.StatusOK,
		"/apis/stable.example.com":                                http.StatusOK,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want {
			t.Errorf("GET %s = %d, want %d", path, rec.Code, want)
		}
	}
}

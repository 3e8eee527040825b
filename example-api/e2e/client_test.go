package e2e

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

var (
	databasesV1       = schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databases"}
	databasesV1alpha1 = schema.GroupVersionResource{Group: "db.example.com", Version: "v1alpha1", Resource: "databases"}
	classesV1         = schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databaseclasses"}
)

func newDatabase(apiVersion, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       "Database",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
}

// wantStatus checks err is an API status error with the given HTTP code and reason.
func wantStatus(t *testing.T, what string, err error, code int32, reason metav1.StatusReason) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("%s: want a metav1.Status error (%d %s), got %v", what, code, reason, err)
	}
	s := status.Status()
	if s.Kind != "Status" || s.APIVersion != "v1" || s.Status != metav1.StatusFailure || s.Code != code || s.Reason != reason {
		t.Errorf("%s: status = {kind %q apiVersion %q status %q code %d reason %q message %q}, want code %d reason %q",
			what, s.Kind, s.APIVersion, s.Status, s.Code, s.Reason, s.Message, code, reason)
	}
}

// TestDynamicClientErrors shows the error contract with client-go's dynamic client:
// 409 AlreadyExists, 409 Conflict on a stale resourceVersion, 404 NotFound, each a metav1.Status.
func TestDynamicClientErrors(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := s.dynamic.Resource(databasesV1).Namespace("default")

	created, err := dbs.Create(ctx, newDatabase("db.example.com/v1", "errors", map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.GetResourceVersion() == "" || created.GetUID() == "" || created.GetCreationTimestamp().Time.IsZero() {
		t.Errorf("created object lacks resourceVersion, uid or creationTimestamp: %v", created.Object["metadata"])
	}

	_, err = dbs.Create(ctx, newDatabase("db.example.com/v1", "errors", map[string]any{"engine": "mysql"}), metav1.CreateOptions{})
	wantStatus(t, "create existing", err, http.StatusConflict, metav1.StatusReasonAlreadyExists)

	// A first update with the current resourceVersion succeeds; a second with the same, now
	// stale, resourceVersion is a conflict.
	stale := created.DeepCopy()
	updated := created.DeepCopy()
	if err := unstructured.SetNestedField(updated.Object, int64(2), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if _, err := dbs.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update with current resourceVersion: %v", err)
	}
	if err := unstructured.SetNestedField(stale.Object, int64(4), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	_, err = dbs.Update(ctx, stale, metav1.UpdateOptions{})
	wantStatus(t, "update with stale resourceVersion", err, http.StatusConflict, metav1.StatusReasonConflict)

	_, err = dbs.Get(ctx, "missing", metav1.GetOptions{})
	wantStatus(t, "get missing", err, http.StatusNotFound, metav1.StatusReasonNotFound)
	_, err = s.dynamic.Resource(classesV1).Get(ctx, "missing", metav1.GetOptions{})
	wantStatus(t, "get missing cluster-scoped", err, http.StatusNotFound, metav1.StatusReasonNotFound)
	err = dbs.Delete(ctx, "missing", metav1.DeleteOptions{})
	wantStatus(t, "delete missing", err, http.StatusNotFound, metav1.StatusReasonNotFound)

	// The stored object kept the accepted update, not the stale one.
	got, err := dbs.Get(ctx, "errors", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 2 {
		t.Errorf("replicas after the stale update = %d, want 2", r)
	}
}

// TestDynamicClientVersionsAndWatch writes through v1alpha1, reads through both versions,
// and watches through client-go.
func TestDynamicClientVersionsAndWatch(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	alpha := s.dynamic.Resource(databasesV1alpha1).Namespace("default")
	v1 := s.dynamic.Resource(databasesV1).Namespace("default")

	w, err := v1.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	in := newDatabase("db.example.com/v1alpha1", "legacy", map[string]any{"engine": "mysql", "sizeGiB": int64(5)})
	out, err := alpha.Create(ctx, in, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create through v1alpha1: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(out.Object, "spec", "sizeGiB"); size != 5 {
		t.Errorf("v1alpha1 create returned sizeGiB %d, want 5", size)
	}
	asV1, err := v1.Get(ctx, "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if storage, _, _ := unstructured.NestedString(asV1.Object, "spec", "storage"); storage != "5Gi" {
		t.Errorf("v1 storage = %q, want 5Gi", storage)
	}
	if asV1.GetAPIVersion() != "db.example.com/v1" {
		t.Errorf("v1 read apiVersion = %q", asV1.GetAPIVersion())
	}

	select {
	case ev := <-w.ResultChan():
		obj, ok := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Added || !ok || obj.GetName() != "legacy" || obj.GetAPIVersion() != "db.example.com/v1" {
			t.Errorf("first watch event = %s %v, want ADDED legacy in v1", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the create")
	}
	if err := alpha.Delete(ctx, "legacy", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete through v1alpha1: %v", err)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Deleted {
			t.Errorf("second watch event = %s, want DELETED", ev.Type)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the delete")
	}
}

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// TestReplicasReadYourWrites runs two servers on one etcd, each with its own watch cache:
// a write through one is at once in the other's consistent lists (resourceVersion "", served
// from its cache once it has caught up with etcd) and gets, and its watchers see it, with no
// stale read, as two kube-apiservers behave. (Over HTTP a cache that served consistent lists
// without waiting would mostly have caught up anyway; storagetest's replica-read-your-writes
// case, which the cache's conformance run includes, is the sharp check.)
func TestReplicasReadYourWrites(t *testing.T) {
	etcd := startEtcd(t)
	a := startServer(t, "--etcd-servers="+etcd.URL())
	b := startServer(t, "--etcd-servers="+etcd.URL())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	viaA := a.unthrottled(t).Resource(databasesV1).Namespace("default")
	viaB := b.unthrottled(t).Resource(databasesV1).Namespace("default")
	start, err := viaB.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := viaB.Watch(ctx, metav1.ListOptions{ResourceVersion: start.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for i := range 15 {
		name := fmt.Sprintf("replica-%02d", i)
		created, err := viaA.Create(ctx, newDatabase("db.example.com/v1", name, map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s through A: %v", name, err)
		}
		list, err := viaB.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list through B: %v", err)
		}
		if !hasVersion(list.Items, name, created.GetResourceVersion()) {
			t.Fatalf("B's consistent list right after A created %s at %s lacks it", name, created.GetResourceVersion())
		}
		if err := unstructured.SetNestedField(created.Object, "on", "spec", "parameters", "replicated"); err != nil {
			t.Fatal(err)
		}
		updated, err := viaB.Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update %s through B: %v", name, err)
		}
		paged, err := viaA.List(ctx, metav1.ListOptions{Limit: 5})
		if err != nil {
			t.Fatalf("list through A: %v", err)
		}
		for paged.GetContinue() != "" && !hasVersion(paged.Items, name, updated.GetResourceVersion()) {
			if paged, err = viaA.List(ctx, metav1.ListOptions{Limit: 5, Continue: paged.GetContinue()}); err != nil {
				t.Fatalf("list through A: %v", err)
			}
		}
		if !hasVersion(paged.Items, name, updated.GetResourceVersion()) {
			t.Fatalf("A's paged consistent list right after B updated %s to %s lacks the update", name, updated.GetResourceVersion())
		}
		for _, want := range []struct {
			typ watch.EventType
			rv  string
		}{{watch.Added, created.GetResourceVersion()}, {watch.Modified, updated.GetResourceVersion()}} {
			select {
			case ev := <-w.ResultChan():
				if u, ok := ev.Object.(*unstructured.Unstructured); !ok || ev.Type != want.typ || u.GetName() != name || u.GetResourceVersion() != want.rv {
					t.Fatalf("B's watch: %s %v; want %s of %s at %s", ev.Type, ev.Object, want.typ, name, want.rv)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("B's watch: no %s of %s within 10s", want.typ, name)
			}
		}
	}
}

// hasVersion reports whether items holds name at resourceVersion rv.
func hasVersion(items []unstructured.Unstructured, name, rv string) bool {
	for _, it := range items {
		if it.GetName() == name && it.GetResourceVersion() == rv {
			return true
		}
	}
	return false
}

package endpoints_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// TestDynamicClient drives the server with client-go's dynamic client, as kubectl and
// controllers do.
func TestDynamicClient(t *testing.T) {
	s := newTestServer(t)
	client, err := dynamic.NewForConfig(&rest.Config{Host: s.url})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := client.Resource(schema.GroupVersionResource{Group: "test.apigen.dev", Version: "v1beta1", Resource: "widgets"}).Namespace("ns")
	w, err := res.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "test.apigen.dev/v1beta1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "dyn"}, "spec": map[string]interface{}{"colour": "teal"},
	}}
	created, err := res.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if colour, _, _ := unstructured.NestedString(created.Object, "spec", "colour"); colour != "teal" {
		t.Errorf("created %v", created.Object)
	}
	if err := unstructured.SetNestedField(created.Object, int64(9), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	if _, err := res.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if _, err := res.Update(ctx, created, metav1.UpdateOptions{}); err == nil || !isConflict(err) {
		t.Errorf("stale Update: %v", err)
	}
	list, err := res.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("List: %v %v", err, list)
	}
	if err := res.Delete(ctx, "dyn", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	var types []watch.EventType
	for len(types) < 3 {
		select {
		case ev := <-w.ResultChan():
			types = append(types, ev.Type)
		case <-ctx.Done():
			t.Fatalf("events so far: %v", types)
		}
	}
	if diff := cmp.Diff([]watch.EventType{watch.Added, watch.Modified, watch.Deleted}, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestMetadataClient drives the server with client-go's metadata client, which asks for
// PartialObjectMetadata(List), as metadata informers (garbage collectors) do.
func TestMetadataClient(t *testing.T) {
	s := newTestServer(t)
	client, err := metadata.NewForConfig(&rest.Config{Host: s.url})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := client.Resource(schema.GroupVersionResource{Group: "test.apigen.dev", Version: "v1", Resource: "widgets"}).Namespace("ns")
	w, err := res.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("m", 1, "red")}, 201, nil)
	list, err := res.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "m" || list.Items[0].Kind != "PartialObjectMetadata" {
		t.Fatalf("List: %v %+v", err, list)
	}
	select {
	case ev := <-w.ResultChan():
		m, ok := ev.Object.(*metav1.PartialObjectMetadata)
		if ev.Type != watch.Added || !ok || m.Name != "m" {
			t.Errorf("event %s %T %v", ev.Type, ev.Object, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
}

// TestDynamicInformer runs a client-go shared informer (streaming list, then watch) against
// the server, as controllers do.
func TestDynamicInformer(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("before", 1, "red")}, 201, nil)
	client, err := dynamic.NewForConfig(&rest.Config{Host: s.url})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := client.Resource(schema.GroupVersionResource{Group: "test.apigen.dev", Version: "v1", Resource: "widgets"}).Namespace("ns")
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return res.Watch(ctx, opts)
		},
	}, &unstructured.Unstructured{}, 0, cache.Indexers{})
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("after", 1, "red")}, 201, nil)
	for {
		keys := informer.GetStore().ListKeys()
		if len(keys) == 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("informer keys %v", keys)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

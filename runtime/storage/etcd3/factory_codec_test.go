package etcd3_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestStorageWithCodec stores unstructured objects with unstructured.UnstructuredJSONScheme
// under <prefix>/<group>/<resource>, as custom resources are stored.
func TestStorageWithCodec(t *testing.T) {
	client, _ := etcdtest.Run(t)
	f := &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	gr := schema.GroupResource{Group: "stable.example.com", Resource: "crontabs"}
	newObj := func() runtime.Object { return &unstructured.Unstructured{} }
	if _, err := f.NewStorageWithCodec(gr, nil, newObj); err == nil {
		t.Error("NewStorageWithCodec accepted a nil codec")
	}
	st, err := f.NewStorageWithCodec(gr, unstructured.UnstructuredJSONScheme, newObj)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "a", "namespace": "ns"}, "spec": map[string]any{"replicas": int64(2)},
	}}
	if err := st.Create(ctx, "/ns/a", in, &unstructured.Unstructured{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	resp, err := client.Get(ctx, "/registry/stable.example.com/crontabs/ns/a")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw read: %v, %d keys", err, len(resp.Kvs))
	}
	got := &unstructured.Unstructured{}
	if err := st.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil || got.GetResourceVersion() == "" {
		t.Fatalf("Get: %v, %v", err, got.Object)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 2 || got.GetKind() != "CronTab" {
		t.Errorf("Get = %v", got.Object)
	}
}

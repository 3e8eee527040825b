package etcd3_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

func TestStorageFactory(t *testing.T) {
	client, _ := etcdtest.Run(t)
	f := &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	scheme := testapi.NewScheme()
	if _, err := f.NewStorage(testapi.Resource, schema.GroupVersion{Group: "test.apigen.dev", Version: "v9"}, scheme, testapi.NewWidget); err == nil {
		t.Error("NewStorage accepted an unregistered storage version")
	}
	st, err := f.NewStorage(testapi.Resource, testapi.SchemeGroupVersion, scheme, testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}
	out := &testapi.Widget{}
	if err := st.Create(ctx, "/ns/a", in, out); err != nil {
		t.Fatalf("Create: %v", err)
	}
	resp, err := client.Get(ctx, "/registry/test.apigen.dev/widgets/ns/a")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw read of /registry/test.apigen.dev/widgets/ns/a: %v, %d keys", err, len(resp.Kvs))
	}
	if raw := string(resp.Kvs[0].Value); !strings.Contains(raw, `"apiVersion":"test.apigen.dev/v1"`) || !strings.Contains(raw, `"kind":"Widget"`) {
		t.Errorf("stored bytes %s are not a test.apigen.dev/v1 Widget", raw)
	}
	got := &testapi.Widget{}
	if err := st.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil || got.Name != "a" || got.ResourceVersion == "" {
		t.Errorf("Get: %v, %+v", err, got.ObjectMeta)
	}
}

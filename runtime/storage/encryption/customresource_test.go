package encryption_test

import (
	"bytes"
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/encryption"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestCustomResourceEncrypted: the storage factory encrypts custom resources' storage
// (NewStorageWithCodec) too, by a "*.<group>" rule, as kube-apiserver encrypts CRs.
func TestCustomResourceEncrypted(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	cfg, err := encryption.Parse([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" +
		"- resources: ['*.stable.example.com']\n  providers: [{secretbox: {keys: [{name: k, secret: " + b64(9, 32) + "}]}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := encryption.Build(context.Background(), cfg, encryption.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &etcd3.StorageFactory{Client: client, Prefix: "/registry", Transformers: tr.TransformerFor}
	gr := schema.GroupResource{Group: "stable.example.com", Resource: "crontabs"}
	st, err := f.NewStorageWithCodec(gr, unstructured.UnstructuredJSONScheme, func() runtime.Object { return &unstructured.Unstructured{} })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "a", "namespace": "ns"}, "spec": map[string]any{"cron": secret},
	}}
	if err := st.Create(ctx, "/ns/a", in, &unstructured.Unstructured{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	resp, err := client.Get(ctx, "/registry/stable.example.com/crontabs/ns/a")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw read: %v", err)
	}
	if v := resp.Kvs[0].Value; !bytes.HasPrefix(v, []byte("k8s:enc:secretbox:v1:k:")) || bytes.Contains(v, []byte(secret)) {
		t.Errorf("etcd holds %q, want it under k8s:enc:secretbox:v1:k: without the marker", v)
	}
	got := &unstructured.Unstructured{}
	if err := st.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "cron"); c != secret {
		t.Errorf("Get = %v", got.Object)
	}
}

package encryption_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/encryption"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// secret is a marker the stored objects carry; etcd must never hold it in the clear.
const secret = "plaintext-marker-7f3a"

// b64 returns a base64 key of n bytes, distinct per seed.
func b64(seed byte, n int) string {
	return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{seed}, n))
}

// writeConfig writes an EncryptionConfiguration whose rule covers the test resource with
// providers (YAML list items) and returns its path.
func writeConfig(t *testing.T, providers string) string {
	t.Helper()
	cfg := fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [%s]
  providers:
%s`, testapi.Resource.String(), providers)
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newStorage returns the test resource's storage on client with the transformers of the
// configuration at path.
func newStorage(t *testing.T, client *clientv3.Client, path string) storage.Interface {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tr, err := encryption.LoadFile(ctx, path, encryption.Options{KMSStatusInterval: testStatusInterval})
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	f := &etcd3.StorageFactory{Client: client, Prefix: "/registry", Transformers: tr.TransformerFor}
	st, err := f.NewStorage(testapi.Resource, testapi.SchemeGroupVersion, testapi.NewScheme(), testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// widget is a Widget named name carrying the secret marker.
func widget(name string) *testapi.Widget {
	return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"secret": secret}}}
}

// raw returns what etcd holds for the widget named name and its ModRevision.
func raw(t *testing.T, client *clientv3.Client, name string) ([]byte, int64) {
	t.Helper()
	resp, err := client.Get(context.Background(), "/registry/"+testapi.Resource.Group+"/"+testapi.Resource.Resource+"/ns/"+name)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw read of %s: %v, %d keys", name, err, len(resp.Kvs))
	}
	return resp.Kvs[0].Value, resp.Kvs[0].ModRevision
}

// checkRaw fails unless etcd holds the widget named name under prefix, without the marker.
func checkRaw(t *testing.T, client *clientv3.Client, name, prefix string) {
	t.Helper()
	v, _ := raw(t, client, name)
	if !bytes.HasPrefix(v, []byte(prefix)) {
		t.Errorf("etcd holds %q..., want the prefix %q", v[:min(len(v), 40)], prefix)
	}
	if bytes.Contains(v, []byte(secret)) {
		t.Errorf("etcd holds the plaintext marker %q", secret)
	}
}

// roundTrip creates, gets, lists and updates the widget named name through st.
func roundTrip(t *testing.T, st storage.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	if err := st.Create(ctx, "/ns/"+name, widget(name), &testapi.Widget{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got := &testapi.Widget{}
	if err := st.Get(ctx, "/ns/"+name, storage.GetOptions{}, got); err != nil || got.Labels["secret"] != secret {
		t.Fatalf("Get: %v, %+v", err, got.ObjectMeta)
	}
	list := &testapi.WidgetList{}
	if err := st.GetList(ctx, "/ns/"+name, storage.ListOptions{}, list); err != nil ||
		len(list.Items) != 1 || list.Items[0].Labels["secret"] != secret {
		t.Fatalf("GetList: %v, %d items", err, len(list.Items))
	}
	// A watch from "0" sends the stored object (ADDED), then the update (MODIFIED).
	w, err := st.Watch(ctx, "/ns/"+name, storage.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	out := &testapi.Widget{}
	err = st.GuaranteedUpdate(ctx, "/ns/"+name, out, false, nil, func(obj runtime.Object) (runtime.Object, error) {
		w := obj.(*testapi.Widget)
		w.Labels["updated"] = "yes"
		return w, nil
	})
	if err != nil || out.Labels["updated"] != "yes" || out.Labels["secret"] != secret {
		t.Fatalf("GuaranteedUpdate: %v, %+v", err, out.ObjectMeta)
	}
	for _, want := range []watch.EventType{watch.Added, watch.Modified} {
		select {
		case ev := <-w.ResultChan():
			if got, ok := ev.Object.(*testapi.Widget); ev.Type != want || !ok || got.Labels["secret"] != secret {
				t.Fatalf("watch event %s %#v, want %s of the widget", ev.Type, ev.Object, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s event in 5s", want)
		}
	}
}

func TestProvidersRoundTrip(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	sock := startPlugin(t, "key-1")
	for _, tc := range []struct{ name, providers, prefix string }{
		{"aescbc", "  - aescbc:\n      keys: [{name: key1, secret: " + b64(1, 32) + "}]\n", "k8s:enc:aescbc:v1:key1:"},
		{"aesgcm", "  - aesgcm:\n      keys: [{name: key1, secret: " + b64(2, 16) + "}]\n", "k8s:enc:aesgcm:v1:key1:"},
		{"secretbox", "  - secretbox:\n      keys: [{name: key1, secret: " + b64(3, 32) + "}]\n", "k8s:enc:secretbox:v1:key1:"},
		{"kms", "  - kms:\n      apiVersion: v2\n      name: fake\n      endpoint: unix://" + sock.path + "\n", "k8s:enc:kms:v2:fake:"},
		{"identity", "  - identity: {}\n", "{"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStorage(t, client, writeConfig(t, tc.providers))
			roundTrip(t, st, tc.name)
			if tc.name == "identity" {
				if v, _ := raw(t, client, tc.name); !bytes.Contains(v, []byte(secret)) {
					t.Errorf("identity stored %q, not the plain JSON", v)
				}
				return
			}
			checkRaw(t, client, tc.name, tc.prefix)
		})
	}
}

// TestIdentityRefusesEncrypted: a server whose configuration dropped the provider that
// wrote a value fails to read it (Internal), rather than serving ciphertext.
func TestIdentityRefusesEncrypted(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	st := newStorage(t, client, writeConfig(t, "  - aesgcm:\n      keys: [{name: k, secret: "+b64(4, 32)+"}]\n"))
	ctx := context.Background()
	if err := st.Create(ctx, "/ns/a", widget("a"), &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	plain := newStorage(t, client, writeConfig(t, "  - identity: {}\n"))
	err := plain.Get(ctx, "/ns/a", storage.GetOptions{}, &testapi.Widget{})
	var se *storage.StatusError
	if !errors.As(err, &se) || se.Code != storage.ErrCodeInternal {
		t.Fatalf("Get with identity only: %v, want an internal error", err)
	}
}

// TestKeyRotation: a new key put first writes new values; values under the old key still
// read; an update that changes nothing rewrites a value read with the old key (stale), and
// does not rewrite one read with the current key.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	ctx := context.Background()
	key1 := "{name: key1, secret: " + b64(5, 32) + "}"
	key2 := "{name: key2, secret: " + b64(6, 32) + "}"
	old := newStorage(t, client, writeConfig(t, "  - aescbc:\n      keys: ["+key1+"]\n"))
	if err := old.Create(ctx, "/ns/a", widget("a"), &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	checkRaw(t, client, "a", "k8s:enc:aescbc:v1:key1:")

	rotated := newStorage(t, client, writeConfig(t, "  - aescbc:\n      keys: ["+key2+", "+key1+"]\n"))
	got := &testapi.Widget{}
	if err := rotated.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil || got.Labels["secret"] != secret {
		t.Fatalf("Get of a value under the old key: %v, %+v", err, got.ObjectMeta)
	}
	if err := rotated.Create(ctx, "/ns/b", widget("b"), &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	checkRaw(t, client, "b", "k8s:enc:aescbc:v1:key2:")

	same := func(obj runtime.Object) (runtime.Object, error) { return obj, nil }
	if err := rotated.GuaranteedUpdate(ctx, "/ns/a", &testapi.Widget{}, false, nil, same); err != nil {
		t.Fatalf("no-op update: %v", err)
	}
	checkRaw(t, client, "a", "k8s:enc:aescbc:v1:key2:")
	_, rev := raw(t, client, "a")
	if err := rotated.GuaranteedUpdate(ctx, "/ns/a", &testapi.Widget{}, false, nil, same); err != nil {
		t.Fatalf("second no-op update: %v", err)
	}
	if _, again := raw(t, client, "a"); again != rev {
		t.Errorf("a no-op update of a current value wrote it again (ModRevision %d -> %d)", rev, again)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, cfg, want string }{
		{"kind", "apiVersion: v1\nkind: Pod\n", "unexpected config type"},
		{"unknown field", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresourcez: []\n", "unknown field"},
		{"two providers in one", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n    aescbc: {keys: [{name: a, secret: " + b64(1, 32) + "}]}\n", "more than one provider"},
		{"masked", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: ['*.*']\n  providers: [{identity: {}}]\n- resources: [secrets]\n  providers: [{identity: {}}]\n", `resource "secrets" is masked by earlier rule "*.*"`},
		{"bad aes key", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers: [{aesgcm: {keys: [{name: a, secret: " + b64(1, 7) + "}]}}]\n", "named key a"},
		{"kms v2 cachesize", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers: [{kms: {apiVersion: v2, name: x, cachesize: 10, endpoint: 'unix:///nope'}}]\n", "cachesize is not supported in v2"},
		{"kms v1", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers: [{kms: {name: x, endpoint: 'unix:///nope'}}]\n", "KMSv1 is deprecated"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(tc.cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := encryption.LoadFile(context.Background(), path, encryption.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: LoadFile: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestTransformerFor: the rule naming a resource wins over "*.<group>", which wins over
// "*.*"; a resource no rule covers is stored as is.
func TestTransformerFor(t *testing.T) {
	t.Parallel()
	cfg := []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [databases.db.example.com, secrets]
  providers: [{aesgcm: {keys: [{name: exact, secret: ` + b64(1, 16) + `}]}}]
- resources: ['*.db.example.com']
  providers: [{aesgcm: {keys: [{name: group, secret: ` + b64(2, 16) + `}]}}]
- resources: ['*.*']
  providers: [{aesgcm: {keys: [{name: all, secret: ` + b64(3, 16) + `}]}}]
`)
	parsed, err := encryption.Parse(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := encryption.Build(context.Background(), parsed, encryption.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for gr, want := range map[schema.GroupResource]string{
		{Group: "db.example.com", Resource: "databases"}: "k8s:enc:aesgcm:v1:exact:",
		{Resource: "secrets"}:                            "k8s:enc:aesgcm:v1:exact:",
		{Group: "db.example.com", Resource: "backups"}:   "k8s:enc:aesgcm:v1:group:",
		{Group: "apps", Resource: "deployments"}:         "k8s:enc:aesgcm:v1:all:",
	} {
		out, err := tr.TransformerFor(gr).TransformToStorage(ctx, []byte("x"), value.DefaultContext("k"))
		if err != nil || !bytes.HasPrefix(out, []byte(want)) {
			t.Errorf("%s: %q, %v; want the prefix %q", gr, out, err, want)
		}
	}
	none := encryption.Transformers{}
	if out, err := none.TransformerFor(schema.GroupResource{Resource: "secrets"}).TransformToStorage(ctx, []byte("x"), value.DefaultContext("k")); err != nil || string(out) != "x" {
		t.Errorf("no rule: %q, %v; want the value as is", out, err)
	}
}

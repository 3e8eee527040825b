package encryption_test

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime"
	kmstypes "k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2/v2"
	kmsapi "k8s.io/kms/apis/v2"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/encryption"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// testStatusInterval is how often the tests' KMS probes poll Status.
const testStatusInterval = 50 * time.Millisecond

// fakePlugin is a KMS v2 plugin for tests on a unix socket: its "KEK" of key ID id XORs
// with a byte derived from id and prefixes the key ID, so a DEK encrypted under one key ID
// decrypts only with it. It counts Encrypt and Decrypt calls.
type fakePlugin struct {
	kmsapi.UnimplementedKeyManagementServiceServer
	path               string
	stop               func() // stops serving
	mu                 sync.Mutex
	keyID              string
	encrypts, decrypts atomic.Int32
}

// startPlugin serves a fakePlugin with the key ID keyID on a socket in a temp dir.
func startPlugin(t *testing.T, keyID string) *fakePlugin {
	t.Helper()
	p := &fakePlugin{path: filepath.Join(t.TempDir(), "kms.sock"), keyID: keyID}
	ln, err := net.Listen("unix", p.path)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	kmsapi.RegisterKeyManagementServiceServer(srv, p)
	go srv.Serve(ln) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)
	p.stop = srv.Stop
	return p
}

// rotate makes id the plugin's current key ID.
func (p *fakePlugin) rotate(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keyID = id
}

func (p *fakePlugin) current() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keyID
}

// xor is the fake KEK of key ID id.
func xor(id string, in []byte) []byte {
	var k byte = 0x5a
	for _, c := range []byte(id) {
		k ^= c
	}
	out := make([]byte, len(in))
	for i, b := range in {
		out[i] = b ^ k
	}
	return out
}

func (p *fakePlugin) Status(context.Context, *kmsapi.StatusRequest) (*kmsapi.StatusResponse, error) {
	return &kmsapi.StatusResponse{Version: "v2", Healthz: "ok", KeyId: p.current()}, nil
}

func (p *fakePlugin) Encrypt(_ context.Context, req *kmsapi.EncryptRequest) (*kmsapi.EncryptResponse, error) {
	p.encrypts.Add(1)
	id := p.current()
	return &kmsapi.EncryptResponse{Ciphertext: append([]byte(id+"/"), xor(id, req.Plaintext)...), KeyId: id}, nil
}

func (p *fakePlugin) Decrypt(_ context.Context, req *kmsapi.DecryptRequest) (*kmsapi.DecryptResponse, error) {
	p.decrypts.Add(1)
	ct, ok := bytes.CutPrefix(req.Ciphertext, []byte(req.KeyId+"/"))
	if !ok {
		return nil, grpcError("ciphertext not under key " + req.KeyId)
	}
	return &kmsapi.DecryptResponse{Plaintext: xor(req.KeyId, ct)}, nil
}

type grpcError string

func (e grpcError) Error() string { return string(e) }

// kmsKeyID returns the key ID of the EncryptedObject etcd holds for the widget named name.
func kmsKeyID(t *testing.T, v []byte, prefix string) string {
	t.Helper()
	body, ok := bytes.CutPrefix(v, []byte(prefix))
	if !ok {
		t.Fatalf("etcd holds %q..., want the prefix %q", v[:min(len(v), 40)], prefix)
	}
	var obj kmstypes.EncryptedObject
	if err := proto.Unmarshal(body, &obj); err != nil {
		t.Fatalf("the stored value is not kube's EncryptedObject: %v", err)
	}
	return obj.KeyID
}

// TestKMSv2: values are kube's EncryptedObject under "k8s:enc:kms:v2:<name>:"; one DEK
// serves many writes (one Encrypt) and one Decrypt serves many reads (DEK cache); a new key
// ID from Status rotates the DEK, values under the old one still read, and a no-op update
// rewrites them under the new key ID (stale).
func TestKMSv2(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	ctx := context.Background()
	plugin := startPlugin(t, "key-1")
	cfg := writeConfig(t, "  - kms:\n      apiVersion: v2\n      name: fake\n      endpoint: unix://"+plugin.path+"\n")
	const prefix = "k8s:enc:kms:v2:fake:"

	st := newStorage(t, client, cfg)
	for _, name := range []string{"a", "b", "c"} {
		if err := st.Create(ctx, "/ns/"+name, widget(name), &testapi.Widget{}); err != nil {
			t.Fatalf("Create %s: %v", name, err)
		}
		checkRaw(t, client, name, prefix)
		if v, _ := raw(t, client, name); kmsKeyID(t, v, prefix) != "key-1" {
			t.Errorf("%s: key ID %q, want key-1", name, kmsKeyID(t, v, prefix))
		}
	}
	if n := plugin.encrypts.Load(); n != 1 {
		t.Errorf("3 writes made %d Encrypt calls, want 1 (the DEK is generated once per key ID)", n)
	}

	// A second server (a new DEK cache) reads the three values with one Decrypt.
	fresh := newStorage(t, client, cfg)
	before := plugin.decrypts.Load()
	list := &testapi.WidgetList{}
	if err := fresh.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true}, list); err != nil || len(list.Items) != 3 {
		t.Fatalf("GetList: %v, %d items", err, len(list.Items))
	}
	if n := plugin.decrypts.Load() - before; n != 1 {
		t.Errorf("reading 3 values under one DEK made %d Decrypt calls, want 1 (DEK cache)", n)
	}

	// Key ID rotation: the probe sees key-2 and generates a new DEK under it.
	plugin.rotate("key-2")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := st.Create(ctx, "/ns/probe", widget("probe"), &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
		v, _ := raw(t, client, "probe")
		if kmsKeyID(t, v, prefix) == "key-2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("writes still use key-1 5s after the plugin rotated to key-2")
		}
		if err := st.Delete(ctx, "/ns/probe", &testapi.Widget{}, nil, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(testStatusInterval)
	}
	got := &testapi.Widget{}
	if err := st.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil || got.Labels["secret"] != secret {
		t.Fatalf("Get of a value under key-1: %v", err)
	}
	if err := st.GuaranteedUpdate(ctx, "/ns/a", &testapi.Widget{}, false, nil, func(obj runtime.Object) (runtime.Object, error) { return obj, nil }); err != nil {
		t.Fatal(err)
	}
	if v, _ := raw(t, client, "a"); kmsKeyID(t, v, prefix) != "key-2" {
		t.Errorf("after a no-op update a value under key-1 is still under %q, want key-2", kmsKeyID(t, v, prefix))
	}
}

// TestKMSHealth: the "kms-providers" check passes while the plugin answers Status and fails
// once it is gone, naming the provider.
func TestKMSHealth(t *testing.T) {
	t.Parallel()
	plugin := startPlugin(t, "key-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, err := encryption.Parse([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" +
		"- resources: [secrets]\n  providers: [{kms: {apiVersion: v2, name: fake, endpoint: 'unix://" + plugin.path + "', timeout: 1s}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	health := &encryption.KMSHealth{}
	if !health.Empty() || health.Check(ctx) != nil {
		t.Fatal("an empty KMSHealth is not healthy")
	}
	if _, err := encryption.Build(ctx, cfg, encryption.Options{KMSHealth: health}); err != nil {
		t.Fatal(err)
	}
	if health.Empty() {
		t.Fatal("the kms provider's probe was not added")
	}
	if err := health.Check(ctx); err != nil {
		t.Fatalf("Check with the plugin up: %v", err)
	}
	plugin.stop()
	if err := health.Check(ctx); err == nil || !strings.Contains(err.Error(), "KMS Provider fake") {
		t.Fatalf("Check with the plugin gone: %v, want a failure naming the provider", err)
	}
}

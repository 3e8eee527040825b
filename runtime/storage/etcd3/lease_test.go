package etcd3_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// newTTLStorage returns widget storage from a factory with leases tuned by cfg, under its
// own prefix of client's etcd.
func newTTLStorage(t *testing.T, client *clientv3.Client, prefix string, cfg etcd3.LeaseConfig) storage.Interface {
	t.Helper()
	f := &etcd3.StorageFactory{Client: client, Prefix: prefix, Leases: cfg}
	st, err := f.NewStorage(testapi.Resource, testapi.SchemeGroupVersion, testapi.NewScheme(), testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// widget returns a new widget named name in namespace ns.
func widget(name string) *testapi.Widget {
	return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
}

// leaseOf returns the etcd lease the key of widget name under prefix is attached to (0: none).
func leaseOf(t *testing.T, client *clientv3.Client, prefix, name string) clientv3.LeaseID {
	t.Helper()
	resp, err := client.Get(context.Background(), prefix+"/test.apigen.dev/widgets/ns/"+name)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw read of %s: %v, %d keys", name, err, len(resp.Kvs))
	}
	return clientv3.LeaseID(resp.Kvs[0].Lease)
}

// TestTTLExpiry checks that objects created or updated with a TTL (storage.WithTTL) are
// removed by etcd when it has passed, and that watchers see them deleted, while an object
// written without one stays.
func TestTTLExpiry(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	st := newTTLStorage(t, client, "/expiry", etcd3.LeaseConfig{})
	ctx := context.Background()
	ttl := storage.WithTTL(ctx, time.Second)
	if err := st.Create(ctx, "/ns/kept", widget("kept"), &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, "/ns/updated", widget("updated"), &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	w, err := st.Watch(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := st.Create(ttl, "/ns/created", widget("created"), &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	err = st.GuaranteedUpdate(ttl, "/ns/updated", &testapi.Widget{}, false, nil, func(in runtime.Object) (runtime.Object, error) {
		out := in.DeepCopyObject().(*testapi.Widget)
		out.Labels = map[string]string{"updated": "true"}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if leaseOf(t, client, "/expiry", "kept") != 0 || leaseOf(t, client, "/expiry", "created") == 0 {
		t.Fatal("want a lease on the object written with a TTL only")
	}
	deleted := map[string]bool{}
	timeout := time.After(15 * time.Second) // etcd's shortest lease is about 2 s
	for len(deleted) < 2 {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == "DELETED" {
				deleted[ev.Object.(*testapi.Widget).Name] = true
			}
		case <-timeout:
			t.Fatalf("after 15s, deleted %v; want created and updated", deleted)
		}
	}
	if !deleted["created"] || !deleted["updated"] {
		t.Errorf("deleted %v; want created and updated", deleted)
	}
	for _, name := range []string{"created", "updated"} {
		if err := st.Get(ctx, "/ns/"+name, storage.GetOptions{}, &testapi.Widget{}); !storage.IsNotFound(err) {
			t.Errorf("Get %s after its TTL: %v, want NotFound", name, err)
		}
	}
	if err := st.Get(ctx, "/ns/kept", storage.GetOptions{}, &testapi.Widget{}); err != nil {
		t.Errorf("Get kept (no TTL): %v", err)
	}
}

// TestTTLLeaseReuse checks kube-apiserver's lease sharing: writes with a TTL within the
// reuse period (min(60 s, 5 % of the TTL)) share one lease, at most MaxObjectCount writes
// each, and the lease lives TTL + the reuse period; without reuse each write has its own.
func TestTTLLeaseReuse(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	cases := []struct {
		name       string
		cfg        etcd3.LeaseConfig
		ttl        time.Duration
		wantLeases int
		wantTTL    int64 // the granted TTL of the leases, in seconds
	}{
		// 5 % of 100 s is 5 s: ten writes in well under 5 s, four per lease.
		{"max-objects", etcd3.LeaseConfig{MaxObjectCount: 4}, 100 * time.Second, 3, 105},
		// kube's defaults with --event-ttl's default: 5 % of 1 h is 180 s, capped at 60 s.
		{"default", etcd3.LeaseConfig{}, time.Hour, 1, 3660},
		{"no-reuse", etcd3.LeaseConfig{ReuseDurationSeconds: -1}, 100 * time.Second, 10, 100},
	}
	for _, c := range cases {
		prefix := "/" + c.name
		st := newTTLStorage(t, client, prefix, c.cfg)
		ctx := storage.WithTTL(context.Background(), c.ttl)
		leases := map[clientv3.LeaseID]bool{}
		for i := range 10 {
			name := fmt.Sprint("w", i)
			if err := st.Create(ctx, "/ns/"+name, widget(name), &testapi.Widget{}); err != nil {
				t.Fatal(err)
			}
			leases[leaseOf(t, client, prefix, name)] = true
		}
		if len(leases) != c.wantLeases {
			t.Errorf("%s: 10 writes used %d leases, want %d", c.name, len(leases), c.wantLeases)
		}
		for id := range leases {
			resp, err := client.TimeToLive(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GrantedTTL != c.wantTTL {
				t.Errorf("%s: lease granted for %ds, want %ds", c.name, resp.GrantedTTL, c.wantTTL)
			}
		}
	}
}

package etcd3_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

const replicaPrefix = "/registry/test.apigen.dev/widgets"

// rpcCounter counts the etcd KV calls made through a client, by gRPC method name.
type rpcCounter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *rpcCounter) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	c.mu.Lock()
	c.calls[method[strings.LastIndex(method, "/")+1:]]++
	c.mu.Unlock()
	return invoker(ctx, method, req, reply, cc, opts...)
}

// take returns the counts so far and starts again from zero.
func (c *rpcCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	c.calls = map[string]int{}
	return calls
}

// replicas returns two widget stores on one etcd under the same prefix, as two server
// replicas sharing a cluster, and a counter of the first one's etcd calls.
func replicas(t *testing.T) (a, b storage.Interface, calls *rpcCounter) {
	_, srv := etcdtest.Run(t)
	calls = &rpcCounter{calls: map[string]int{}}
	newStore := func(opts ...grpc.DialOption) storage.Interface {
		client, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 10 * time.Second, DialOptions: opts})
		if err != nil {
			t.Fatalf("cannot connect to etcd: %v", err)
		}
		t.Cleanup(func() { _ = client.Close() })
		return etcd3.New(client, widgetCodec(), testapi.NewWidget, replicaPrefix, testapi.Resource)
	}
	return newStore(grpc.WithUnaryInterceptor(calls.intercept)), newStore(), calls
}

// setSize returns an UpdateFunc setting spec.size, failing with a Conflict unless the
// current resourceVersion is wantRV (when not "").
func setSize(size int32, wantRV string) storage.UpdateFunc {
	return func(in runtime.Object) (runtime.Object, error) {
		w := in.(*testapi.Widget)
		if wantRV != "" && w.ResourceVersion != wantRV {
			return nil, storage.NewConflictError("/ns/w", 0, fmt.Sprintf("resourceVersion %s, want %s", w.ResourceVersion, wantRV))
		}
		w.Spec.Size = size
		return w, nil
	}
}

// mustUpdate runs GuaranteedUpdate and returns the stored widget.
func mustUpdate(t *testing.T, s storage.Interface, fn storage.UpdateFunc) *testapi.Widget {
	t.Helper()
	out := &testapi.Widget{}
	if err := s.GuaranteedUpdate(context.Background(), "/ns/w", out, false, nil, fn); err != nil {
		t.Fatalf("GuaranteedUpdate: %v", err)
	}
	return out
}

// mustCreate creates widget ns/w with size 1 (and uid) through s.
func mustCreate(t *testing.T, s storage.Interface, uid types.UID) *testapi.Widget {
	t.Helper()
	in := &testapi.Widget{}
	in.Name, in.Namespace, in.UID, in.Spec.Size = "w", "ns", uid, 1
	out := &testapi.Widget{}
	if err := s.Create(context.Background(), "/ns/w", in, out); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return out
}

// TestUpdateSkipsTheRead shows that an update of an object the store has just written or
// read goes to etcd as one transaction, without a read first.
func TestUpdateSkipsTheRead(t *testing.T) {
	a, _, calls := replicas(t)
	mustCreate(t, a, "u1")
	calls.take()
	mustUpdate(t, a, setSize(2, ""))
	mustUpdate(t, a, setSize(3, ""))
	if got := calls.take(); got["Range"] != 0 || got["Txn"] != 2 {
		t.Errorf("two updates after a create made etcd calls %v, want 2 Txn and no Range", got)
	}
}

// TestStaleStateLosesNoUpdate: a replica that last saw an older state still applies its
// update to the current one.
func TestStaleStateLosesNoUpdate(t *testing.T) {
	bothWays(t, func(t *testing.T, replicas replicaSet) {
		a, b, _ := replicas(t)
		mustCreate(t, a, "u1")
		mustUpdate(t, b, setSize(5, "")) // b now remembers its write
		mustUpdate(t, a, func(in runtime.Object) (runtime.Object, error) {
			w := in.(*testapi.Widget)
			w.Labels = map[string]string{"by": "a"}
			return w, nil
		})
		got := mustUpdate(t, b, func(in runtime.Object) (runtime.Object, error) {
			w := in.(*testapi.Widget)
			w.Spec.Size++
			return w, nil
		})
		if got.Spec.Size != 6 || got.Labels["by"] != "a" {
			t.Errorf("update from a stale state stored size %d labels %v, want size 6 and a's label", got.Spec.Size, got.Labels)
		}
	})
}

// TestStaleStateConflictIsRechecked: an error computed from a remembered state stands only
// when that state is still current.
func TestStaleStateConflictIsRechecked(t *testing.T) {
	bothWays(t, func(t *testing.T, replicas replicaSet) {
		a, b, _ := replicas(t)
		created := mustCreate(t, b, "u1") // b remembers created
		current := mustUpdate(t, a, setSize(2, ""))
		// A client that read from a: b's remembered state looks stale to it, the current one does not.
		got := mustUpdate(t, b, setSize(3, current.ResourceVersion))
		if got.Spec.Size != 3 {
			t.Errorf("update at the current resourceVersion through a stale replica stored size %d, want 3", got.Spec.Size)
		}
		// A client that read the old state: b's remembered state is current now, so the Conflict stands.
		err := b.GuaranteedUpdate(context.Background(), "/ns/w", &testapi.Widget{}, false, nil, setSize(4, created.ResourceVersion))
		if !storage.IsConflict(err) {
			t.Errorf("update at a stale resourceVersion: got %v, want Conflict", err)
		}
	})
}

// TestStaleNoopIsRechecked: an update that looks like a no-op against a remembered state is
// written when the current state differs.
func TestStaleNoopIsRechecked(t *testing.T) {
	bothWays(t, func(t *testing.T, replicas replicaSet) {
		a, b, _ := replicas(t)
		created := mustCreate(t, b, "u1") // size 1, remembered by b
		changed := mustUpdate(t, a, setSize(2, ""))
		got := mustUpdate(t, b, setSize(1, ""))
		if got.Spec.Size != 1 || got.ResourceVersion == created.ResourceVersion || got.ResourceVersion == changed.ResourceVersion {
			t.Errorf("stale no-op stored size %d at rv %s, want size 1 at a new rv (created %s, changed %s)",
				got.Spec.Size, got.ResourceVersion, created.ResourceVersion, changed.ResourceVersion)
		}
		stored := &testapi.Widget{}
		if err := a.Get(context.Background(), "/ns/w", storage.GetOptions{}, stored); err != nil || stored.Spec.Size != 1 {
			t.Errorf("after the update, get = size %d, %v; want size 1", stored.Spec.Size, err)
		}
	})
}

// TestStaleDeletePreconditions: a delete whose uid precondition fails against a remembered
// state is judged again against the current one.
func TestStaleDeletePreconditions(t *testing.T) {
	bothWays(t, func(t *testing.T, replicas replicaSet) {
		a, b, _ := replicas(t)
		mustCreate(t, b, "old") // b remembers uid "old"
		if err := a.Delete(context.Background(), "/ns/w", &testapi.Widget{}, nil, nil); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		mustCreate(t, a, "new")
		uid := types.UID("new")
		out := &testapi.Widget{}
		if err := b.Delete(context.Background(), "/ns/w", out, &storage.Preconditions{UID: &uid}, nil); err != nil {
			t.Fatalf("Delete with the current uid through a stale replica: %v", err)
		}
		if out.UID != "new" {
			t.Errorf("deleted uid %q, want new", out.UID)
		}
		if err := b.Delete(context.Background(), "/ns/w", out, nil, nil); !storage.IsNotFound(err) {
			t.Errorf("second delete: got %v, want NotFound", err)
		}
	})
}

// TestStaleNoopJudgedOnCurrentState: an update that is a no-op against a remembered state is
// judged again on the current one even when that holds the same bytes (changed and changed
// back by another replica): a client's resourceVersion older than the current one is a
// Conflict, as it is without the remembered state.
func TestStaleNoopJudgedOnCurrentState(t *testing.T) {
	bothWays(t, func(t *testing.T, replicas replicaSet) {
		a, b, _ := replicas(t)
		created := mustCreate(t, b, "u1") // size 1, remembered by b
		mustUpdate(t, a, setSize(2, ""))
		current := mustUpdate(t, a, setSize(1, "")) // the bytes b remembers, at a newer revision
		err := b.GuaranteedUpdate(context.Background(), "/ns/w", &testapi.Widget{}, false, nil, setSize(1, created.ResourceVersion))
		if !storage.IsConflict(err) {
			t.Errorf("no-op update at the stale resourceVersion %s (current %s): got %v, want Conflict",
				created.ResourceVersion, current.ResourceVersion, err)
		}
		got := mustUpdate(t, b, setSize(1, current.ResourceVersion))
		if got.ResourceVersion != current.ResourceVersion {
			t.Errorf("no-op update at the current resourceVersion stored rv %s, want it kept at %s", got.ResourceVersion, current.ResourceVersion)
		}
	})
}

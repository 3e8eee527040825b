package etcd3_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestConformance runs the storage conformance suite against one embedded etcd, each
// subtest under its own key prefix: with etcd3's Codec (writes return what they wrote
// without decoding it) and with a plain apimachinery codec (writes decode what they wrote),
// over gRPC; and with etcd3's Codec over the member's in-process client, as the server uses
// its embedded etcd. Under -short only the first (the suite once, with the server's codec over
// gRPC); the other two run the same suite again with one piece swapped, and make test runs
// them.
func TestConformance(t *testing.T) {
	client, srv := etcdtest.Run(t)
	inProcess := srv.Client()
	t.Cleanup(func() { _ = inProcess.Close() }) // before the member stops
	backends := []struct {
		name   string
		client *clientv3.Client
		codec  func() runtime.Codec
	}{
		{"codec", client, func() runtime.Codec { return widgetCodec() }},
		{"plain-codec", client, testapi.Codec},
		{"in-process-client", inProcess, func() runtime.Codec { return widgetCodec() }},
	}
	var n atomic.Int64
	replicaClient := etcdtest.NewClient(t, srv)
	if testing.Short() {
		backends = backends[:1]
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			var prefix string
			storagetest.Run(t, storagetest.Backend{
				New: func(t *testing.T) storage.Interface {
					prefix = fmt.Sprintf("/registry/test.apigen.dev/widgets-%d", n.Add(1))
					return etcd3.New(b.client, b.codec(), testapi.NewWidget, prefix, testapi.Resource)
				},
				NewReference: func(t *testing.T) storage.Interface {
					return etcd3.New(b.client, testapi.Codec(), testapi.NewWidget, prefix, testapi.Resource)
				},
				NewReplica: func(t *testing.T) storage.Interface {
					return etcd3.New(replicaClient, b.codec(), testapi.NewWidget, prefix, testapi.Resource)
				},
				Compact:          func(t *testing.T) { compactNow(t, b.client) },
				BookmarkInterval: etcdtest.ProgressNotifyInterval,
			})
		})
	}
}

// widgetCodec is etcd3's Codec for the conformance suite's widgets.
func widgetCodec() *etcd3.Codec {
	scheme := testapi.NewScheme()
	ser := jsonserializer.NewSerializer(scheme, scheme, json.SerializerOptions{})
	return etcd3.NewCodec(scheme, ser, testapi.SchemeGroupVersion, testapi.SchemeGroupVersion)
}

// compactNow compacts etcd at its current revision.
func compactNow(t *testing.T, client *clientv3.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := client.Get(ctx, "compact-probe")
	if err != nil {
		t.Fatalf("cannot read etcd revision: %v", err)
	}
	if _, err := client.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("cannot compact etcd: %v", err)
	}
}

// TestValueHasNoResourceVersion checks that the stored value never holds a resourceVersion
// and is the storage version's JSON.
func TestValueHasNoResourceVersion(t *testing.T) {
	client, _ := etcdtest.Run(t)
	s := etcd3.New(client, testapi.Codec(), testapi.NewWidget, "/registry/test.apigen.dev/widgets", testapi.Resource)
	ctx := context.Background()
	in := &testapi.Widget{}
	in.Name, in.Namespace = "a", "ns"
	out := &testapi.Widget{}
	if err := s.Create(ctx, "/ns/a", in, out); err != nil {
		t.Fatalf("Create: %v", err)
	}
	resp, err := client.Get(ctx, "/registry/test.apigen.dev/widgets/ns/a")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw Get: %v, %d kvs", err, len(resp.Kvs))
	}
	value := string(resp.Kvs[0].Value)
	if strings.Contains(value, "resourceVersion") || !strings.Contains(value, `"apiVersion":"test.apigen.dev/v1"`) {
		t.Errorf("stored value %s; want test.apigen.dev/v1 JSON without a resourceVersion", value)
	}
	if want := fmt.Sprint(resp.Kvs[0].ModRevision); out.ResourceVersion != want {
		t.Errorf("resourceVersion %s, want the ModRevision %s", out.ResourceVersion, want)
	}
}

// TestUnreachable checks that calls against a stopped etcd end with the caller's context: a
// read is a Timeout (the request's deadline passed), a write that never left because there
// was no connection is Unreachable (nothing was written, a client may retry): the store's
// client is dialed with etcd3.TrackSends, as a server's.
func TestUnreachable(t *testing.T) {
	_, srv := etcdtest.Run(t)
	client := trackedClient(t, srv.Endpoints()...)
	if _, err := client.Get(context.Background(), "warm-up"); err != nil {
		t.Fatal(err)
	}
	s := etcd3.New(client, testapi.Codec(), testapi.NewWidget, "/registry/test.apigen.dev/widgets", testapi.Resource)
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Get(ctx, "/ns/a", storage.GetOptions{}, &testapi.Widget{})
	if !storage.IsTimeout(err) {
		t.Errorf("Get against a stopped etcd: got %v, want Timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Get against a stopped etcd took %v; want it bounded by its 300ms context", d)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	w := &testapi.Widget{}
	w.Name, w.Namespace = "a", "ns"
	if err := s.Create(ctx, "/ns/a", w, &testapi.Widget{}); !storage.IsUnreachable(err) {
		t.Errorf("Create against a stopped etcd: got %v, want Unreachable", err)
	}
}

// newStore returns a widget store on a fresh etcd, and its client.
func newStore(t *testing.T) (storage.Interface, *clientv3.Client) {
	client, _ := etcdtest.Run(t)
	return etcd3.New(client, widgetCodec(), testapi.NewWidget, "/registry/test.apigen.dev/widgets", testapi.Resource), client
}

func TestResourceVersionTooLarge(t *testing.T) {
	t.Cleanup(etcd3.SetResourceVersionWait(100 * time.Millisecond))
	s, _ := newStore(t)
	ctx := context.Background()
	if err := s.Get(ctx, "/ns/a", storage.GetOptions{ResourceVersion: "1000000"}, &testapi.Widget{}); err == nil ||
		!strings.Contains(err.Error(), "Too large resource version") {
		t.Errorf("Get at a future resourceVersion: got %v, want a Too large resource version error", err)
	}
	for _, match := range []metav1.ResourceVersionMatch{metav1.ResourceVersionMatchNotOlderThan, metav1.ResourceVersionMatchExact} {
		opts := storage.ListOptions{Recursive: true, ResourceVersion: "1000000", ResourceVersionMatch: match}
		if err := s.GetList(ctx, "/", opts, &testapi.WidgetList{}); err == nil || !strings.Contains(err.Error(), "Too large resource version") {
			t.Errorf("%s list at a future resourceVersion: got %v, want a Too large resource version error", match, err)
		}
	}
	if err := s.Get(ctx, "/ns/a", storage.GetOptions{ResourceVersion: "x"}, &testapi.Widget{}); !storage.IsInvalidObj(err) {
		t.Errorf("Get at resourceVersion x: got %v, want InvalidObj", err)
	}
}

func TestListExactCompacted(t *testing.T) {
	s, client := newStore(t)
	ctx := context.Background()
	w := &testapi.Widget{}
	w.Name, w.Namespace = "a", "ns"
	if err := s.Create(ctx, "/ns/a", w, &testapi.Widget{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	old := &testapi.WidgetList{}
	if err := s.GetList(ctx, "/", storage.ListOptions{Recursive: true}, old); err != nil {
		t.Fatalf("GetList: %v", err)
	}
	if _, err := client.Put(ctx, "unrelated", "x"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	compactNow(t, client)
	opts := storage.ListOptions{Recursive: true, ResourceVersion: old.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	err := s.GetList(ctx, "/", opts, &testapi.WidgetList{})
	if !storage.IsExpired(err) || !strings.Contains(err.Error(), "too old") {
		t.Errorf("Exact list at a compacted revision: got %v, want Expired", err)
	}
}

func TestWatchEndsWithContext(t *testing.T) {
	s, _ := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := s.Watch(ctx, "/", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(w.Stop)
	cancel()
	select {
	case _, ok := <-w.ResultChan():
		if ok {
			t.Errorf("event after the context ended")
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("result channel still open 30s after the context ended")
	}
	w.Stop() // idempotent
}

func TestKeysCannotEscapePrefix(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for _, key := range []string{"/../other/a", "/ns/../../a", "/ns/./a", ".."} {
		if err := s.Get(ctx, key, storage.GetOptions{}, &testapi.Widget{}); !storage.IsInvalidObj(err) {
			t.Errorf("Get %q: got %v, want InvalidObj", key, err)
		}
		if _, err := s.Watch(ctx, key, storage.ListOptions{}); !storage.IsInvalidObj(err) {
			t.Errorf("Watch %q: got %v, want InvalidObj", key, err)
		}
	}
}

// TestResourceVersionAheadIsWaitedFor: a read at a revision etcd reaches a moment later (a
// client that saw it on another server of the same etcd) waits for it and succeeds, as
// kube-apiserver's watch cache waits up to 3 s; one etcd does not reach in time fails with
// ResourceVersionTooLarge after the wait.
func TestResourceVersionAheadIsWaitedFor(t *testing.T) {
	t.Cleanup(etcd3.SetResourceVersionWait(5 * time.Second))
	s, client := newStore(t)
	ctx := context.Background()
	resp, err := client.Put(ctx, "unrelated", "x")
	if err != nil {
		t.Fatal(err)
	}
	next := strconv.FormatInt(resp.Header.Revision+1, 10)
	got := make(chan error, 2)
	go func() {
		got <- s.Get(ctx, "/ns/a", storage.GetOptions{ResourceVersion: next, IgnoreNotFound: true}, &testapi.Widget{})
	}()
	go func() {
		opts := storage.ListOptions{Recursive: true, ResourceVersion: next, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}
		got <- s.GetList(ctx, "/", opts, &testapi.WidgetList{})
	}()
	time.Sleep(100 * time.Millisecond) // the reads are waiting: etcd is not at next yet
	if _, err := client.Put(ctx, "unrelated", "y"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-got; err != nil {
			t.Errorf("read at the next revision after etcd reached it: %v", err)
		}
	}

	t.Cleanup(etcd3.SetResourceVersionWait(200 * time.Millisecond))
	start := time.Now()
	err = s.Get(ctx, "/ns/a", storage.GetOptions{ResourceVersion: "1000000"}, &testapi.Widget{})
	if !storage.IsResourceVersionTooLarge(err) || time.Since(start) < 200*time.Millisecond {
		t.Errorf("read at an unreached revision: %v after %v; want ResourceVersionTooLarge after the wait", err, time.Since(start))
	}
}

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// compactRevKey is the key etcd3.StartCompactor (as kube-apiserver's compactor) counts its
// compactions in: its Version.
const compactRevKey = "compact_rev_key"

// TestInformerAcrossCompactions runs a client-go dynamic SharedIndexInformer on databases
// with client-go's defaults (WatchListClient on: the initial state comes as a streaming list,
// sendInitialEvents=true) against a server that compacts etcd every second. The informer
// syncs, then sees every change made over several compaction cycles: one add, update and
// delete notification per create, update and delete. Then its watch is cut, changes are made
// and etcd is compacted past the informer's resourceVersion while it is away, and the
// informer watches again: without the watch cache (--watch-cache=false) the re-watch gets
// 410 Expired and the reflector lists again; with it, the cache's history still holds the
// changes and the watch resumes from it without a 410, unless the history is smaller than
// the changes made meanwhile (--watch-cache-sizes), when it is a 410 again. Either way the
// notifications add up to one per change, and the informer's store ends equal to a fresh
// list.
func TestInformerAcrossCompactions(t *testing.T) {
	t.Parallel()
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Fatalf("client-go's WatchListClient feature is off; this test checks its default (on since client-go 1.35)")
	}
	for _, tc := range []struct {
		name    string
		flags   []string
		want410 bool
	}{
		{"etcd", []string{"--watch-cache=false"}, true},
		{"watch-cache", nil, false},
		{"watch-cache-small-history", []string{"--watch-cache-sizes=databases.db.example.com#2"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) { informerAcrossCompactions(t, tc.flags, tc.want410) })
	}
}

// informerAcrossCompactions is TestInformerAcrossCompactions against a server started with
// flags; want410 says whether the watch resumed after the cut gets 410 Expired.
func informerAcrossCompactions(t *testing.T, flags []string, want410 bool) {
	etcd := startEtcd(t)
	s := startServer(t, append([]string{"--etcd-servers=" + etcd.URL(), "--etcd-compaction-interval=1s"}, flags...)...)
	etcdClient := etcd.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbs := s.unthrottled(t).Resource(databasesV1).Namespace("default")
	w := &writer{t: t, ctx: ctx, dbs: dbs}
	for i := range 10 {
		w.create(fmt.Sprintf("before-%d", i))
	}
	compactionsAtStart := compactions(ctx, t, etcdClient)

	// The informer, through a transport that records its requests and can cut its watches.
	gate := &watchGate{}
	cfg := rest.CopyConfig(s.config)
	cfg.QPS = -1
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { gate.next = rt; return gate }
	informerClient, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(informerClient, 0, "default", nil)
	informer := factory.ForResource(databasesV1).Informer()
	counts := &handlerCounts{}
	if _, err := informer.AddEventHandler(counts.handler()); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		gate.resume()
		factory.Shutdown()
	})
	syncCtx, syncCancel := context.WithTimeout(ctx, 15*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		t.Fatalf("the informer did not sync within 15s; its requests: %v\nserver output:\n%s", gate.requests(), s.proc.Output())
	}
	if got := counts.snapshot(); got.initial != 10 || got.adds+got.updates+got.deletes != 0 {
		t.Fatalf("after sync: %+v, want 10 initial adds and nothing else", got)
	}
	reqs := gate.requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0], "sendInitialEvents=true") || !strings.Contains(reqs[0], "watch=true") {
		t.Errorf("the informer's first request = %v, want a streaming list (watch with sendInitialEvents=true)", reqs)
	}

	// Live changes over several compaction cycles.
	const rounds = 3
	for r := range rounds {
		for i := range 4 {
			w.create(fmt.Sprintf("round-%d-%d", r, i))
		}
		for i := range 3 {
			w.update(fmt.Sprintf("round-%d-%d", r, i))
		}
		w.update(fmt.Sprintf("before-%d", r))
		w.delete(fmt.Sprintf("round-%d-0", r))
		w.waitSeen(counts, 15*time.Second)
		waitCompactions(ctx, t, etcdClient, compactions(ctx, t, etcdClient)+2)
	}
	if n := compactions(ctx, t, etcdClient) - compactionsAtStart; n < 2*rounds {
		t.Errorf("%d compactions during the live changes, want at least %d", n, 2*rounds)
	}

	// A forced 410: cut the informer's watch, change things while it is away, compact etcd past
	// its resourceVersion, let it watch again.
	requestsBefore := len(gate.requests())
	gate.pause()
	w.create("during-cut")
	w.update("before-5")
	w.delete("before-6")
	resp, err := etcdClient.Get(ctx, "health", clientv3.WithCountOnly())
	if err != nil {
		t.Fatalf("cannot read etcd's revision: %v", err)
	}
	if _, err := etcdClient.Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatalf("cannot compact etcd at %d: %v", resp.Header.Revision, err)
	}
	gate.resume()
	w.waitSeen(counts, 30*time.Second)
	relisted := false
	for _, req := range gate.requests()[requestsBefore:] {
		relisted = relisted || strings.Contains(req, "sendInitialEvents=true") || !strings.Contains(req, "watch=true")
	}
	if saw := gate.saw410.Load(); saw != want410 || relisted != want410 {
		t.Errorf("after the compaction the informer's watch got 410: %v, listed again: %v; want %v; its requests since the cut: %v",
			saw, relisted, want410, gate.requests()[requestsBefore:])
	}
	t.Logf("requests of the informer since the cut: %v", gate.requests()[requestsBefore:])

	// A change after the relist still arrives, and the store equals a fresh list.
	w.create("after-relist")
	w.waitSeen(counts, 15*time.Second)
	list, err := dbs.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	want := map[string]string{}
	for _, item := range list.Items {
		want[item.GetName()] = item.GetResourceVersion()
	}
	got := map[string]string{}
	for _, obj := range informer.GetStore().List() {
		u := obj.(*unstructured.Unstructured)
		got[u.GetName()] = u.GetResourceVersion()
	}
	if diff := diffVersions(got, want); diff != "" {
		t.Errorf("informer store (-) vs fresh list (+):\n%s", diff)
	}
	c := counts.snapshot()
	t.Logf("informer notifications: %d initial, %d adds, %d updates, %d deletes; %d compactions",
		c.initial, c.adds, c.updates, c.deletes, compactions(ctx, t, etcdClient)-compactionsAtStart)
}

// writer makes changes through the API and counts them.
type writer struct {
	t   *testing.T
	ctx context.Context
	dbs dynamic.ResourceInterface

	creates, updates, deletes int
}

func (w *writer) create(name string) {
	w.t.Helper()
	if _, err := w.dbs.Create(w.ctx, newDatabase("db.example.com/v1", name, map[string]any{"engine": "postgres"}), metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("create %s: %v", name, err)
	}
	w.creates++
}

// update changes the spec of name (a new version each time).
func (w *writer) update(name string) {
	w.t.Helper()
	obj, err := w.dbs.Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("get %s: %v", name, err)
	}
	params, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "parameters")
	if params == nil {
		params = map[string]string{}
	}
	params["updates"] += "x"
	if err := unstructured.SetNestedStringMap(obj.Object, params, "spec", "parameters"); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.dbs.Update(w.ctx, obj, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("update %s: %v", name, err)
	}
	w.updates++
}

func (w *writer) delete(name string) {
	w.t.Helper()
	if err := w.dbs.Delete(w.ctx, name, metav1.DeleteOptions{}); err != nil {
		w.t.Fatalf("delete %s: %v", name, err)
	}
	w.deletes++
}

// waitSeen waits up to within until the informer's notifications match the writes (after its
// 10 initial objects), and fails the test if they do not, or if they exceed them.
func (w *writer) waitSeen(counts *handlerCounts, within time.Duration) {
	w.t.Helper()
	want := counted{initial: 10, adds: w.creates - 10, updates: w.updates, deletes: w.deletes}
	deadline := time.Now().Add(within)
	for {
		got := counts.snapshot()
		if got == want {
			return
		}
		if got.adds > want.adds || got.updates > want.updates || got.deletes > want.deletes || time.Now().After(deadline) {
			w.t.Fatalf("informer notifications %+v, want %+v", got, want)
		}
		select {
		case <-w.ctx.Done():
			w.t.Fatalf("informer notifications %+v, want %+v: %v", got, want, w.ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// counted are informer notifications: adds of the initial list, later adds, updates that
// changed the resourceVersion (a relist also notifies unchanged objects), and deletes.
type counted struct{ initial, adds, updates, deletes int }

// handlerCounts counts an informer's notifications.
type handlerCounts struct {
	mu sync.Mutex
	c  counted
}

func (h *handlerCounts) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(_ any, initial bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if initial {
				h.c.initial++
			} else {
				h.c.adds++
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if oldObj.(*unstructured.Unstructured).GetResourceVersion() != newObj.(*unstructured.Unstructured).GetResourceVersion() {
				h.c.updates++
			}
		},
		DeleteFunc: func(any) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.c.deletes++
		},
	}
}

func (h *handlerCounts) snapshot() counted {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.c
}

// compactions returns how many compactions the server's compactor has made (the Version of
// compact_rev_key).
func compactions(ctx context.Context, t *testing.T, c *clientv3.Client) int {
	t.Helper()
	resp, err := c.Get(ctx, compactRevKey)
	if err != nil {
		t.Fatalf("cannot read %s: %v", compactRevKey, err)
	}
	if len(resp.Kvs) == 0 {
		return 0
	}
	return int(resp.Kvs[0].Version)
}

// waitCompactions waits (at most 15s) until the compactor has made n compactions.
func waitCompactions(ctx context.Context, t *testing.T, c *clientv3.Client, n int) {
	t.Helper()
	err := pollUntil(ctx, 15*time.Second, func() error {
		if got := compactions(ctx, t, c); got < n {
			return fmt.Errorf("%d compactions, want %d", got, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// diffVersions lists the names whose resourceVersion differs between got and want.
func diffVersions(got, want map[string]string) string {
	var lines []string
	for name, rv := range got {
		if want[name] != rv {
			lines = append(lines, fmt.Sprintf("- %s %s", name, rv))
		}
	}
	for name, rv := range want {
		if got[name] != rv {
			lines = append(lines, fmt.Sprintf("+ %s %s", name, rv))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// watchGate is an http.RoundTripper between client-go and the server that records every
// request ("GET /path?query"), can cut the watches in flight (their bodies end with io.EOF,
// as a dropped connection looks to client-go) and hold new watches until resumed, and notes
// whether a watch response carried a 410 Expired.
type watchGate struct {
	next   http.RoundTripper
	saw410 atomic.Bool

	mu     sync.Mutex
	log    []string
	paused chan struct{} // non-nil while paused; closed by resume
	bodies map[*gatedBody]bool
}

// RoundTrip implements http.RoundTripper.
func (g *watchGate) RoundTrip(req *http.Request) (*http.Response, error) {
	isWatch := req.URL.Query().Get("watch") == "true"
	g.mu.Lock()
	g.log = append(g.log, req.Method+" "+req.URL.RequestURI())
	paused := g.paused
	g.mu.Unlock()
	if isWatch && paused != nil {
		select {
		case <-paused:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	if !isWatch {
		return g.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	resp, err := g.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode == http.StatusGone {
		g.saw410.Store(true)
	}
	b := &gatedBody{gate: g, body: resp.Body, cancel: cancel}
	g.mu.Lock()
	if g.bodies == nil {
		g.bodies = map[*gatedBody]bool{}
	}
	g.bodies[b] = true
	g.mu.Unlock()
	resp.Body = b
	return resp, nil
}

// pause cuts every watch in flight and holds new ones until resume.
func (g *watchGate) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused == nil {
		g.paused = make(chan struct{})
	}
	for b := range g.bodies {
		b.cut.Store(true)
		b.cancel()
	}
}

// resume lets held and new watches through.
func (g *watchGate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused != nil {
		close(g.paused)
		g.paused = nil
	}
}

// requests returns the requests made so far, in order.
func (g *watchGate) requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.log...)
}

// gatedBody is a watch response body a watchGate can cut.
type gatedBody struct {
	gate   *watchGate
	body   io.ReadCloser
	cancel context.CancelFunc
	cut    atomic.Bool
	tail   []byte // the end of the previous read, to match across reads
}

// expiredMarker is how a 410 Expired shows in a watch ERROR event's metav1.Status.
var expiredMarker = []byte(`"code":410`)

// Read reads the body; once cut, the stream ends with io.EOF.
func (b *gatedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if b.cut.Load() {
		return 0, io.EOF
	}
	window := append(append([]byte(nil), b.tail...), p[:n]...)
	if bytes.Contains(window, expiredMarker) {
		b.gate.saw410.Store(true)
	}
	if len(window) > len(expiredMarker) {
		window = window[len(window)-len(expiredMarker):]
	}
	b.tail = window
	return n, err
}

// Close closes the body and forgets it.
func (b *gatedBody) Close() error {
	b.gate.mu.Lock()
	delete(b.gate.bodies, b)
	b.gate.mu.Unlock()
	b.cancel()
	return b.body.Close()
}

package cacher_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// writer makes numbered writes of widgets in namespace "ns" and remembers, per write, the
// event a watcher of the namespace must see: "TYPE name@resourceVersion".
type writer struct {
	t      *testing.T
	s      storage.Interface
	n      int
	events []string
}

// write creates widget w<i%5> when absent, updates it otherwise, and deletes it every
// third time.
func (wr *writer) write() {
	wr.t.Helper()
	ctx := context.Background()
	i := wr.n
	wr.n++
	name := fmt.Sprintf("w%d", i%5)
	out := &testapi.Widget{}
	err := wr.s.Create(ctx, "/ns/"+name, &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}, out)
	typ := watch.Added
	if storage.IsExists(err) {
		if i%3 == 0 {
			typ, err = watch.Deleted, wr.s.Delete(ctx, "/ns/"+name, out, nil, nil)
		} else {
			typ = watch.Modified
			err = wr.s.GuaranteedUpdate(ctx, "/ns/"+name, out, false, nil, func(in runtime.Object) (runtime.Object, error) {
				w := in.(*testapi.Widget)
				w.Spec.Size = int32(i)
				return w, nil
			})
		}
	}
	if err != nil {
		wr.t.Fatalf("write %d of %s: %v", i, name, err)
	}
	wr.events = append(wr.events, fmt.Sprintf("%s %s@%s", typ, name, out.ResourceVersion))
}

// collect reads n events of w (bookmarks skipped), failing after 10s.
func collect(t *testing.T, w watch.Interface, n int) []string {
	t.Helper()
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch ended after %d events %q; want %d", len(got), got, n)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			obj, ok := ev.Object.(*testapi.Widget)
			if !ok {
				t.Fatalf("event %s %#v after %q", ev.Type, ev.Object, got)
			}
			got = append(got, fmt.Sprintf("%s %s@%s", ev.Type, obj.Name, obj.ResourceVersion))
		case <-timeout:
			t.Fatalf("%d events %q within 10s; want %d", len(got), got, n)
		}
	}
	return got
}

// listNames returns "name@resourceVersion" of every widget of namespace "ns" in s.
func listNames(t *testing.T, s storage.Interface, opts storage.ListOptions) []string {
	t.Helper()
	opts.Recursive = true
	l := &testapi.WidgetList{}
	if err := s.GetList(context.Background(), "/ns/", opts, l); err != nil {
		t.Fatalf("GetList: %v", err)
	}
	var out []string
	for _, w := range l.Items {
		out = append(out, w.Name+"@"+w.ResourceVersion)
	}
	return out
}

// TestWatchReplaysAfterCompaction: a watch from a resourceVersion etcd has compacted, but the
// cache's history still holds, replays exactly the events after it (etcd3 alone answers 410).
func TestWatchReplaysAfterCompaction(t *testing.T) {
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	c := newCacher(t, client, prefix, nil, cacher.Config{})
	wr := &writer{t: t, s: c}
	wr.write()
	from := c.Revision()
	waitFor(t, "the first write", func() bool { return len(listNames(t, c, storage.ListOptions{ResourceVersion: "0"})) == 1 })
	from = max(from, revOfEvent(t, wr.events[0]))
	for range 12 {
		wr.write()
	}
	// etcd cancels a watcher still behind a compaction (ErrCompacted): let the cache's watch
	// deliver every write before compacting, as the case is about the cache's history.
	last := revOfEvent(t, wr.events[len(wr.events)-1])
	waitFor(t, "the cache to see every write", func() bool { return c.Revision() >= last })
	compact(t, client)
	opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(from, 10)}
	w, err := c.Watch(context.Background(), "/ns/", opts)
	if err != nil {
		t.Fatalf("Watch from %d: %v", from, err)
	}
	defer w.Stop()
	if diff := cmp.Diff(wr.events[1:], collect(t, w, len(wr.events)-1)); diff != "" {
		t.Errorf("replayed events (-written +got):\n%s", diff)
	}
	raw := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	rw, err := raw.Watch(context.Background(), "/ns/", opts)
	if err == nil {
		defer rw.Stop()
		if ev := <-rw.ResultChan(); ev.Type != watch.Error {
			t.Errorf("etcd3 watch from the compacted revision: %s; want a 410 ERROR, or the test did not compact", ev.Type)
		}
	}
}

// revOfEvent returns the resourceVersion of a writer event.
func revOfEvent(t *testing.T, ev string) int64 {
	for i := len(ev) - 1; i >= 0; i-- {
		if ev[i] == '@' {
			n, err := strconv.ParseInt(ev[i+1:], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no resourceVersion in %q", ev)
	return 0
}

// breakable is storage whose watches a test can end (as etcd ends a watch when its stream
// breaks) and hold back (as while etcd is unreachable).
type breakable struct {
	storage.Interface
	mu      sync.Mutex
	open    []watch.Interface
	held    chan struct{} // while not nil, Watch waits for it to close
	watches int
}

func (b *breakable) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	b.mu.Lock()
	held := b.held
	b.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	w, err := b.Interface.Watch(ctx, key, opts)
	if err == nil {
		b.mu.Lock()
		b.open = append(b.open, w)
		b.watches++
		b.mu.Unlock()
	}
	return w, err
}

// breakWatches waits for a watch to be open, then ends every open watch; with hold, new
// ones wait until release.
func (b *breakable) breakWatches(t *testing.T, hold bool) {
	waitFor(t, "the cache to watch etcd", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.open) > 0
	})
	b.mu.Lock()
	open := b.open
	b.open = nil
	if hold {
		b.held = make(chan struct{})
	}
	b.mu.Unlock()
	for _, w := range open {
		w.Stop()
	}
}

// release lets held watches start.
func (b *breakable) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.held)
	b.held = nil
}

// newBreakableCacher returns a synced Cacher over breakable etcd3 storage.
func newBreakableCacher(t *testing.T) (*cacher.Cacher, *breakable, *writer, *clientv3.Client) {
	client, _ := etcdtest.Run(t)
	b := &breakable{Interface: etcd3.New(client, widgetCodec(), testapi.NewWidget, newPrefix(), testapi.Resource)}
	c, err := cacher.New(cacher.Config{Storage: b, Resource: testapi.Resource, NewFunc: testapi.NewWidget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	waitFor(t, "the cache to sync", c.Synced)
	return c, b, &writer{t: t, s: b.Interface}, client
}

// TestRecoversFromWatchCancellation ends the cache's watch of etcd while writes go on: the
// cache resumes from the last revision it saw, and its watchers see every event once, in
// order, with no gap.
func TestRecoversFromWatchCancellation(t *testing.T) {
	c, b, wr, _ := newBreakableCacher(t)
	w, err := c.Watch(context.Background(), "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(c.Revision(), 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for round := range 3 {
		for range 5 {
			wr.write()
		}
		b.breakWatches(t, round == 1) // round 1: the writes after it happen while no watch runs
		for range 5 {
			wr.write()
		}
		if round == 1 {
			b.release()
		}
	}
	if diff := cmp.Diff(wr.events, collect(t, w, len(wr.events))); diff != "" {
		t.Errorf("events across broken watches (-written +got):\n%s", diff)
	}
	if b.watches < 4 {
		t.Errorf("the cache opened %d watches of etcd, want 4 (one per break)", b.watches)
	}
	if diff := cmp.Diff(listNames(t, b.Interface, storage.ListOptions{}), listNames(t, c, storage.ListOptions{})); diff != "" {
		t.Errorf("consistent list of the cache (-etcd +cache):\n%s", diff)
	}
}

// TestRecoversFromCompaction compacts etcd past the revision the cache would resume its
// watch from: the cache relists (no event lost: its objects are etcd's), its watchers are
// closed rather than left with a gap, and a watch from before the new list gets 410.
func TestRecoversFromCompaction(t *testing.T) {
	c, b, wr, client := newBreakableCacher(t)
	wr.write()
	start := revOfEvent(t, wr.events[0])
	waitFor(t, "the first write", func() bool { return c.Revision() >= start })
	w, err := c.Watch(context.Background(), "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(start, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	b.breakWatches(t, true)
	for range 8 {
		wr.write()
	}
	compact(t, client)
	b.release()
	waitFor(t, "the cache to relist", func() bool { return c.Synced() && c.Revision() >= revOfEvent(t, wr.events[len(wr.events)-1]) })
	// The watcher's stream ended: whatever it got is a prefix of the writes, never a gap.
	var got []string
	for ev := range w.ResultChan() {
		if obj, ok := ev.Object.(*testapi.Widget); ok && ev.Type != watch.Bookmark {
			got = append(got, fmt.Sprintf("%s %s@%s", ev.Type, obj.Name, obj.ResourceVersion))
		}
	}
	if len(got) > len(wr.events)-1 || strings.Join(wr.events[1:1+len(got)], ",") != strings.Join(got, ",") {
		t.Errorf("events before the relist %q are not a prefix of the writes %q", got, wr.events[1:])
	}
	if diff := cmp.Diff(listNames(t, b.Interface, storage.ListOptions{}), listNames(t, c, storage.ListOptions{})); diff != "" {
		t.Errorf("list after the relist (-etcd +cache):\n%s", diff)
	}
	again, err := c.Watch(context.Background(), "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(start, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Stop()
	if ev := <-again.ResultChan(); ev.Type != watch.Error || ev.Object.(*metav1.Status).Code != 410 {
		t.Errorf("watch from before the relist: %s %#v, want a 410 ERROR", ev.Type, ev.Object)
	}
}

// TestSlowWatcherCutOff: a watcher that stops reading is cut off (its channel closes once
// its buffer is full and the dispatch budget is spent, and its consumer is terminated
// through request.TerminateWatch) while another watcher and the cache itself go on.
func TestSlowWatcherCutOff(t *testing.T) {
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	c := newCacher(t, client, prefix, nil, cacher.Config{})
	opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(c.Revision(), 10)}
	var slowTerminated, fastTerminated atomic.Int32
	slow, err := c.Watch(request.WithWatchTerminator(context.Background(), func() { slowTerminated.Add(1) }), "/ns/", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Stop()
	fast, err := c.Watch(request.WithWatchTerminator(context.Background(), func() { fastTerminated.Add(1) }), "/ns/", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Stop()
	wr := &writer{t: t, s: c}
	const writes = 400 // more than a watcher buffers
	var got []string
	for len(wr.events) < writes {
		// In batches the fast watcher reads before the next, so that even a loaded machine
		// never leaves it as far behind as the slow one.
		for range 50 {
			wr.write()
		}
		got = append(got, collect(t, fast, len(wr.events)-len(got))...)
	}
	if diff := cmp.Diff(wr.events, got); diff != "" {
		t.Errorf("events of the fast watcher (-written +got):\n%s", diff)
	}
	n, closed := 0, false
	for !closed {
		select {
		case _, ok := <-slow.ResultChan():
			if !ok {
				closed = true
				continue
			}
			n++
		case <-time.After(10 * time.Second):
			t.Fatalf("the slow watcher's channel is still open after %d events", n)
		}
	}
	if n >= writes {
		t.Errorf("the slow watcher got all %d events; want it cut off", n)
	}
	if s, f := slowTerminated.Load(), fastTerminated.Load(); s != 1 || f != 0 {
		t.Errorf("consumers terminated: the slow one's %d times, the fast one's %d; want 1 and 0", s, f)
	}
	raw := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	if diff := cmp.Diff(listNames(t, raw, storage.ListOptions{}), listNames(t, c, storage.ListOptions{})); diff != "" {
		t.Errorf("consistent list of the cache after the writes (-etcd +cache):\n%s", diff)
	}
	waitFor(t, "the cut-off watcher to be forgotten", func() bool { return c.Watchers() == 1 })
}

// TestWatchersJoiningDuringWrites: watchers started from one resourceVersion while writes go
// on (each replays the history, then takes live events) see every event once, in order,
// whichever of the history and the live events reaches them first.
func TestWatchersJoiningDuringWrites(t *testing.T) {
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	c := newCacher(t, client, prefix, nil, cacher.Config{})
	opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(c.Revision(), 10)}
	wr := &writer{t: t, s: c}
	const writes = 60 // fewer than a watcher buffers: none reads before the writes end
	var watchers []watch.Interface
	for range writes {
		wr.write()
		w, err := c.Watch(context.Background(), "/ns/", opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		watchers = append(watchers, w)
	}
	for i, w := range watchers {
		if diff := cmp.Diff(wr.events, collect(t, w, writes)); diff != "" {
			t.Errorf("events of watcher %d (-written +got):\n%s", i, diff)
		}
	}
}

// TestNarrowedLists: a list of one namespace reads only that namespace's objects, and so
// does a list of every namespace selecting one with metadata.namespace; a list selecting a
// field value (spec.color, a selectable field) reads only the objects with that value (a
// field index built on the first such list and kept current by every event), with the same
// result as etcd's.
func TestNarrowedLists(t *testing.T) {
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	c := newCacher(t, client, prefix, nil, cacher.Config{})
	raw := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	ctx := context.Background()
	for ns := range 4 {
		for i := range 25 {
			color := "blue"
			if i%5 == 0 {
				color = "red"
			}
			w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%02d", i), Namespace: fmt.Sprintf("ns%d", ns)},
				Spec: testapi.WidgetSpec{Color: color}}
			if err := c.Create(ctx, fmt.Sprintf("/ns%d/w%02d", ns, i), w, &testapi.Widget{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	list := func(s storage.Interface, key, selector string) []string {
		t.Helper()
		sel, err := fields.ParseSelector(selector)
		if err != nil {
			t.Fatal(err)
		}
		l := &testapi.WidgetList{}
		opts := storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Field: sel, GetAttrs: testapi.GetAttrs}}
		if err := s.GetList(ctx, key, opts, l); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range l.Items {
			out = append(out, w.Namespace+"/"+w.Name+"@"+w.ResourceVersion)
		}
		return out
	}
	for _, tc := range []struct {
		key, selector string
		maxExamined   int64
	}{
		{"/ns1/", "spec.color!=green", 25},
		{"/", "metadata.namespace=ns2", 25},
		{"/", "metadata.namespace=ns2,metadata.name=w03", 1},
		{"/", "spec.color=red", 20},
		{"/ns3/", "spec.color=red", 20},
	} {
		want := list(raw, tc.key, tc.selector)
		before := cacher.Examined()
		got := list(c, tc.key, tc.selector)
		if n := cacher.Examined() - before; n > tc.maxExamined {
			t.Errorf("list of %s with %s examined %d objects, want at most %d", tc.key, tc.selector, n, tc.maxExamined)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("list of %s with %s (-etcd +cache):\n%s", tc.key, tc.selector, diff)
		}
	}
	// The index follows changes.
	if err := c.GuaranteedUpdate(ctx, "/ns0/w01", &testapi.Widget{}, false, nil, func(in runtime.Object) (runtime.Object, error) {
		w := in.(*testapi.Widget)
		w.Spec.Color = "red"
		return w, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/ns0/w05", &testapi.Widget{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(list(raw, "/", "spec.color=red"), list(c, "/", "spec.color=red")); diff != "" {
		t.Errorf("indexed list after an update and a delete (-etcd +cache):\n%s", diff)
	}
}

// TestCacherWaitsForStart: with Config.Start open the cache does not list (a server's groups
// are still registering types in the scheme its decoding reads), reads go to storage, and it
// fills once Start is closed.
func TestCacherWaitsForStart(t *testing.T) {
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	st := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	start := make(chan struct{})
	c, err := cacher.New(cacher.Config{Storage: st, Resource: testapi.Resource, NewFunc: testapi.NewWidget, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	wr := &writer{t: t, s: c}
	wr.write()
	time.Sleep(300 * time.Millisecond)
	if c.Synced() || c.Revision() != 0 {
		t.Fatalf("the cache listed before Start was closed (synced %v, revision %d)", c.Synced(), c.Revision())
	}
	if got := listNames(t, c, storage.ListOptions{}); len(got) != 1 {
		t.Errorf("a read before Start: %v; want the one widget, from storage", got)
	}
	close(start)
	waitFor(t, "the cache to sync after Start", c.Synced)
}

// TestEndedContextReadsNothing: a read at resourceVersion "0", which the cache serves at once
// without asking storage, returns the context's error when its context has already ended,
// as every storage call does: the handler then answers 504 Timeout, not the object.
func TestEndedContextReadsNothing(t *testing.T) {
	client, _ := etcdtest.Run(t)
	st := etcd3.New(client, widgetCodec(), testapi.NewWidget, newPrefix(), testapi.Resource)
	c, err := cacher.New(cacher.Config{Storage: st, Resource: testapi.Resource, NewFunc: testapi.NewWidget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	(&writer{t: t, s: c}).write()
	waitFor(t, "the cache to sync", c.Synced)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	getErr := c.Get(ctx, "/ns/w0", storage.GetOptions{ResourceVersion: "0"}, &testapi.Widget{})
	listErr := c.GetList(ctx, "/ns/", storage.ListOptions{ResourceVersion: "0", Recursive: true}, &testapi.WidgetList{})
	if !errors.Is(getErr, context.Canceled) || !errors.Is(listErr, context.Canceled) {
		t.Errorf("reads at resourceVersion 0 with an ended context: get %v, list %v; want context.Canceled", getErr, listErr)
	}
}

// TestSharedWatchObjects: watchers whose consumers never write to the objects
// (request.WithSharedWatchObjects, as the watch handler) get one object per event, the same
// for all of them; a read-only watcher without the mark gets an object of its own.
func TestSharedWatchObjects(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	c := newCacher(t, client, newPrefix(), nil, cacher.Config{})
	opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(c.Revision(), 10)}
	shared := request.WithSharedWatchObjects(request.WithReadOnlyResults(context.Background()))
	var ws []watch.Interface
	for _, ctx := range []context.Context{shared, shared, request.WithReadOnlyResults(context.Background())} {
		w, err := c.Watch(ctx, "/ns/", opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ws = append(ws, w)
	}
	wr := &writer{t: t, s: c}
	wr.write()
	var got []runtime.Object
	for i, w := range ws {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added {
				t.Fatalf("watcher %d: %s, want ADDED", i, ev.Type)
			}
			got = append(got, ev.Object)
		case <-time.After(10 * time.Second):
			t.Fatalf("watcher %d: no event in 10s", i)
		}
	}
	if got[0] != got[1] {
		t.Error("the two watchers marked WithSharedWatchObjects got different objects; want the cache's one")
	}
	if got[2] == got[0] {
		t.Error("the read-only watcher without the mark got the shared object; want a copy of its own")
	}
}

package etcd3_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestWatchStopLeavesNoGoroutines starts and stops many watches and checks that the
// goroutine count returns to where it was.
func TestWatchStopLeavesNoGoroutines(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	// Warm up: the client's first watch starts long-lived stream goroutines.
	warm, err := s.Watch(ctx, "/", storage.ListOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer warm.Stop()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	for range 50 {
		w, err := s.Watch(ctx, "/", storage.ListOptions{Recursive: true})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		w.Stop()
		if _, ok := <-w.ResultChan(); ok {
			t.Fatalf("result channel open after Stop")
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		after := runtime.NumGoroutine()
		if after <= before+2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before 50 watches, %d after stopping them all", before, after)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWatchModifiedWithoutPreviousState compacts away an object's previous state before a
// watch from an older resourceVersion reads its update: etcd then sends the change without
// its previous value, and the watch must still report it as MODIFIED (not ADDED), as
// kube-apiserver's watcher, which decides by the key's create revision.
func TestWatchModifiedWithoutPreviousState(t *testing.T) {
	s, client := newStore(t)
	ctx := context.Background()
	created := &testapi.Widget{}
	if err := s.Create(ctx, "/ns/a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}, created); err != nil {
		t.Fatalf("Create: %v", err)
	}
	updated := &testapi.Widget{}
	if err := s.GuaranteedUpdate(ctx, "/ns/a", updated, false, nil, func(in k8sruntime.Object) (k8sruntime.Object, error) {
		w := in.(*testapi.Widget)
		w.Spec.Color = "blue"
		return w, nil
	}); err != nil {
		t.Fatalf("GuaranteedUpdate: %v", err)
	}
	compactNow(t, client) // removes the created revision: the update is now the key's only one
	w, err := s.Watch(ctx, "/ns/a", storage.ListOptions{ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		got, ok := ev.Object.(*testapi.Widget)
		if ev.Type != watch.Modified || !ok || got.Spec.Color != "blue" || got.ResourceVersion != updated.ResourceVersion {
			t.Errorf("event %s %#v, want MODIFIED of the blue widget at %s", ev.Type, ev.Object, updated.ResourceVersion)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
}

// TestIdleWatchGetsBookmarks watches from the latest resourceVersion of an etcd nobody
// writes to: etcd sends such a watch no progress notifications, so the watch itself must
// send a BOOKMARK at its start revision every bookmark period, as kube-apiserver's watch
// cache bookmarks idle watchers.
func TestIdleWatchGetsBookmarks(t *testing.T) {
	t.Cleanup(etcd3.SetBookmarkFrequency(100 * time.Millisecond))
	s, _ := newStore(t)
	ctx := context.Background()
	created := &testapi.Widget{}
	if err := s.Create(ctx, "/ns/a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}, created); err != nil {
		t.Fatalf("Create: %v", err)
	}
	w, err := s.Watch(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: created.ResourceVersion, ProgressNotify: true})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	for i := range 2 {
		select {
		case ev := <-w.ResultChan():
			got, ok := ev.Object.(*testapi.Widget)
			if ev.Type != watch.Bookmark || !ok || got.ResourceVersion != created.ResourceVersion {
				t.Fatalf("event %d: %s %#v, want a BOOKMARK at %s", i, ev.Type, ev.Object, created.ResourceVersion)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no BOOKMARK %d within 5s on an idle watch", i)
		}
	}
}

// TestStreamingListFromCompactedRevision starts a streaming list (sendInitialEvents with
// resourceVersionMatch=NotOlderThan) from a resourceVersion etcd has compacted: it must show
// the latest state, as kube-apiserver's watch cache does, not fail with 410; one from a
// future resourceVersion fails with "Too large resource version".
func TestStreamingListFromCompactedRevision(t *testing.T) {
	t.Cleanup(etcd3.SetResourceVersionWait(100 * time.Millisecond))
	s, client := newStore(t)
	ctx := context.Background()
	first := &testapi.Widget{}
	if err := s.Create(ctx, "/ns/a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}, first); err != nil {
		t.Fatalf("Create: %v", err)
	}
	last := &testapi.Widget{}
	if err := s.Create(ctx, "/ns/b", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}}, last); err != nil {
		t.Fatalf("Create: %v", err)
	}
	compactNow(t, client)
	yes := true
	opts := storage.ListOptions{Recursive: true, ResourceVersion: first.ResourceVersion, SendInitialEvents: &yes,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, ProgressNotify: true}
	w, err := s.Watch(ctx, "/ns/", opts)
	if err != nil {
		t.Fatalf("streaming list from a compacted resourceVersion: %v", err)
	}
	defer w.Stop()
	var got []string
	for len(got) < 3 {
		select {
		case ev := <-w.ResultChan():
			obj := ev.Object.(*testapi.Widget)
			got = append(got, string(ev.Type)+" "+obj.Name+"@"+obj.ResourceVersion)
		case <-time.After(30 * time.Second):
			t.Fatalf("events so far %q; want ADDED a, ADDED b, BOOKMARK", got)
		}
	}
	want := []string{"ADDED a@" + first.ResourceVersion, "ADDED b@" + last.ResourceVersion, "BOOKMARK @" + last.ResourceVersion}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %q, want %q", got, want)
	}
	opts.ResourceVersion = "1000000"
	if _, err := s.Watch(ctx, "/ns/", opts); err == nil || !strings.Contains(err.Error(), "Too large resource version") {
		t.Errorf("streaming list from a future resourceVersion: %v, want Too large resource version", err)
	}
}

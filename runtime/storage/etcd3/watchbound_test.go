package etcd3_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// createWidgets stores n widgets named w0000... in namespace ns.
func createWidgets(t *testing.T, s storage.Interface, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		name := fmt.Sprintf("w%04d", i)
		if err := s.Create(ctx, "/ns/"+name, &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}, &testapi.Widget{}); err != nil {
			t.Fatalf("Create %s: %v", name, err)
		}
	}
}

// TestSlowWatcherIsClosed: a watch whose consumer reads nothing while changes keep coming
// buffers a bounded number of events, then closes, as kube-apiserver's watch cache closes an
// unresponsive watcher.
func TestSlowWatcherIsClosed(t *testing.T) {
	t.Cleanup(etcd3.SetSlowWatcherTimeout(200 * time.Millisecond))
	s, _ := newStore(t)
	w, err := s.Watch(context.Background(), "/", storage.ListOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	createWidgets(t, s, 300) // nobody reads: the buffer fills, then the watch gives up
	// The consumer under test: it reads nothing for five times the watch's patience.
	time.Sleep(time.Second)
	received, closed := 0, false
	timeout := time.After(10 * time.Second)
	for !closed {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				closed = true
				break
			}
			received++
		case <-timeout:
			t.Fatalf("the watch of a consumer that read nothing during 300 changes is still open after 10s (%d events read since)", received)
		}
	}
	if received >= 300 {
		t.Errorf("the slow watch delivered all %d events; want it closed after its buffer", received)
	}
	t.Logf("the slow watch closed with %d events buffered", received)
}

// TestWatchInitialEventsInChunks: the initial events of a collection larger than one read are
// the state at the watch's start, read in chunks at one revision: a write made after Watch
// returns is a change event after them, never part of them.
func TestWatchInitialEventsInChunks(t *testing.T) {
	s, _ := newStore(t)
	n := 2*etcd3.InitialChunk + 7
	createWidgets(t, s, n)
	ctx := context.Background()
	w, err := s.Watch(ctx, "/", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	// Both changes touch keys of the last chunk, which is read after they are made.
	last := fmt.Sprintf("/ns/w%04d", n-1)
	if err := s.Delete(ctx, last, &testapi.Widget{}, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	createWidgets2 := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "zz", Namespace: "ns"}}
	if err := s.Create(ctx, "/ns/zz", createWidgets2, &testapi.Widget{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := make([]string, 0, n+2)
	for i := range n {
		want = append(want, fmt.Sprintf("ADDED w%04d", i))
	}
	want = append(want, fmt.Sprintf("DELETED w%04d", n-1), "ADDED zz")
	for i, wantEv := range want {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch closed after %d events", i)
			}
			got := fmt.Sprintf("%s %s", ev.Type, ev.Object.(*testapi.Widget).Name)
			if ev.Type == watch.Error || got != wantEv {
				t.Fatalf("event %d is %s, want %s", i, got, wantEv)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %d (%s) within 10s", i, wantEv)
		}
	}
}

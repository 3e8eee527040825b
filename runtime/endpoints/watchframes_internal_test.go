package endpoints

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// TestWatchEventJSON checks that the frames watches share are the bytes encoding/json writes
// for a metav1.WatchEvent (plus a newline), HTML-escaped strings and a trailing newline of
// the object included.
func TestWatchEventJSON(t *testing.T) {
	object := []byte(`{"kind":"Widget","metadata":{"name":"a","annotations":{"x":"\u003cb\u003e \u0026"}},"spec":{"n":1.5}}` + "\n")
	want, err := json.Marshal(metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: object}})
	if err != nil {
		t.Fatal(err)
	}
	if got := watchEventJSON(watch.Modified, object); string(got) != string(want)+"\n" {
		t.Errorf("frame\n%s\nwant\n%s", got, want)
	}
}

// TestFrameCacheBuildsOnce: many watchers asking for the frame of one event at once build it
// once; another type or resourceVersion of the same object is another frame; bookmarks and
// objects without a resourceVersion are not cached.
func TestFrameCacheBuildsOnce(t *testing.T) {
	c := newFrameCache()
	obj := &unstructured.Unstructured{}
	obj.SetName("a")
	obj.SetNamespace("ns")
	obj.SetUID("u1")
	obj.SetResourceVersion("7")
	var builds atomic.Int32
	build := func() ([]byte, error) { builds.Add(1); return []byte("frame\n"), nil }
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			data, ok, err := c.get(watch.Event{Type: watch.Added, Object: obj}, build)
			if !ok || err != nil || string(data) != "frame\n" {
				t.Errorf("get = %q, %v, %v", data, ok, err)
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("50 watchers built the frame %d times, want once", n)
	}
	c.get(watch.Event{Type: watch.Deleted, Object: obj}, build)
	newer := obj.DeepCopy()
	newer.SetResourceVersion("8")
	c.get(watch.Event{Type: watch.Added, Object: newer}, build)
	if n := builds.Load(); n != 3 {
		t.Errorf("builds after a DELETED of the same state and a newer state: %d, want 3", n)
	}
	for _, ev := range []watch.Event{{Type: watch.Bookmark, Object: obj}, {Type: watch.Added, Object: &unstructured.Unstructured{}}} {
		if _, ok, _ := c.get(ev, build); ok {
			t.Errorf("%s of %v was cached", ev.Type, ev.Object)
		}
	}
}

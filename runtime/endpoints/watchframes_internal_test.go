package endpoints

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

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

// TestFrameCacheCostsLittleUntilUsed: a scope nobody watches holds no frame storage (a server
// installs a frame cache per resource, version and subresource; a preallocated one was ~50
// KB each, 1.6 MB of an idle server's heap), and the ring still evicts the oldest frame
// once it is full.
func TestFrameCacheCostsLittleUntilUsed(t *testing.T) {
	if size := unsafe.Sizeof(frameCache{}); size > 128 {
		t.Errorf("an unused frame cache holds %d bytes, want at most 128", size)
	}
	if c := newFrameCache(); frames(c) != 0 || c.order != nil {
		t.Errorf("newFrameCache allocated its storage: %d entries, ring of %d", frames(c), len(c.order))
	}
	c := newFrameCache()
	build := func() ([]byte, error) { return []byte("frame\n"), nil }
	objs := make([]*unstructured.Unstructured, frameCacheSize+1)
	for i := range objs {
		objs[i] = &unstructured.Unstructured{}
		objs[i].SetName(fmt.Sprint("o", i))
		objs[i].SetUID("u")
		objs[i].SetResourceVersion(fmt.Sprint(i + 1))
		c.get(watch.Event{Type: watch.Added, Object: objs[i]}, build)
	}
	if n := frames(c); n != frameCacheSize {
		t.Errorf("%d frames cached after %d events, want %d", n, len(objs), frameCacheSize)
	}
	if _, ok := c.entries.Load(frameKey{typ: watch.Added, name: objectName{name: "o0"}, uid: "u", resourceVersion: "1"}); ok {
		t.Errorf("the oldest frame was not evicted")
	}
}

// frames returns how many frames c holds.
func frames(c *frameCache) int {
	n := 0
	c.entries.Range(func(any, any) bool { n++; return true })
	return n
}

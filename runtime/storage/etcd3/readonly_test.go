package etcd3

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestReadOnlyResults: reads marked by request.WithReadOnlyResults share the decode cache's maps
// (no deep copy) yet each result has its own metadata value, resourceVersion included;
// unmarked reads still get deep copies a caller may change.
func TestReadOnlyResults(t *testing.T) {
	client, _ := etcdtest.Run(t)
	s := New(client, testapi.Codec(), testapi.NewWidget, "/registry/readonly", testapi.Resource).(*store)
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"tier": "gold"}}}
		if err := s.Create(ctx, "/ns/"+name, w, &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
	}
	warm := &testapi.Widget{}
	if err := s.Get(ctx, "/ns/a", storage.GetOptions{}, warm); err != nil {
		t.Fatal(err)
	}
	ro := request.WithReadOnlyResults(ctx)
	first, second := &testapi.Widget{}, &testapi.Widget{}
	for _, out := range []*testapi.Widget{first, second} {
		if err := s.Get(ro, "/ns/a", storage.GetOptions{}, out); err != nil {
			t.Fatal(err)
		}
	}
	if first.ResourceVersion == "" || first.ResourceVersion != warm.ResourceVersion || first.Labels["tier"] != "gold" {
		t.Errorf("read-only get = %+v, want the stored widget at rv %s", first.ObjectMeta, warm.ResourceVersion)
	}
	if !sameMap(first.Labels, second.Labels) {
		t.Error("two read-only gets got separate label maps, want the cache's shared one")
	}
	first.ResourceVersion = "changed"
	if second.ResourceVersion != warm.ResourceVersion {
		t.Errorf("a read-only result's resourceVersion is shared: %q", second.ResourceVersion)
	}
	own := &testapi.Widget{}
	if err := s.Get(ctx, "/ns/a", storage.GetOptions{}, own); err != nil {
		t.Fatal(err)
	}
	if sameMap(own.Labels, first.Labels) {
		t.Error("an unmarked get shares the cache's label map, want a deep copy")
	}

	list := &testapi.WidgetList{}
	if err := s.GetList(ro, "/ns/", storage.ListOptions{Recursive: true}, list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].Name != "a" || list.Items[0].ResourceVersion != warm.ResourceVersion ||
		!sameMap(list.Items[0].Labels, first.Labels) {
		t.Errorf("read-only list = %+v, want a and b, a sharing the cache's labels", list.Items)
	}
	mine := &testapi.WidgetList{}
	if err := s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true}, mine); err != nil {
		t.Fatal(err)
	}
	mine.Items[0].Labels["tier"] = "changed by the caller"
	again := &testapi.Widget{}
	if err := s.Get(ro, "/ns/a", storage.GetOptions{}, again); err != nil {
		t.Fatal(err)
	}
	if again.Labels["tier"] != "gold" {
		t.Errorf("a change to an unmarked list's item leaked into the cache: %v", again.Labels)
	}
}

// sameMap reports whether a and b are the same (non-nil) map.
func sameMap(a, b map[string]string) bool {
	if a == nil || b == nil {
		return false
	}
	a["__probe"] = "x"
	defer delete(a, "__probe")
	return b["__probe"] == "x"
}

// TestReadOnlyResultsConcurrent: concurrent read-only gets and lists, each setting its own
// resourceVersion on shared cache objects, while the object is updated (run with -race).
func TestReadOnlyResultsConcurrent(t *testing.T) {
	client, _ := etcdtest.Run(t)
	s := New(client, testapi.Codec(), testapi.NewWidget, "/registry/readonlyrace", testapi.Resource)
	ctx := context.Background()
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", Labels: map[string]string{"tier": "gold"}}}
	if err := s.Create(ctx, "/ns/w", w, &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	ro := request.WithReadOnlyResults(ctx)
	done := make(chan error, 8)
	for range 4 {
		go func() {
			for range 20 {
				got, list := &testapi.Widget{}, &testapi.WidgetList{}
				if err := s.Get(ro, "/ns/w", storage.GetOptions{}, got); err != nil {
					done <- err
					return
				}
				if err := s.GetList(ro, "/ns/", storage.ListOptions{Recursive: true}, list); err != nil {
					done <- err
					return
				}
				if got.Labels["tier"] != "gold" || len(list.Items) != 1 || list.Items[0].ResourceVersion == "" {
					done <- fmt.Errorf("read %+v and %+v", got.ObjectMeta, list.Items)
					return
				}
			}
			done <- nil
		}()
	}
	for i := range 10 {
		if err := s.GuaranteedUpdate(ctx, "/ns/w", &testapi.Widget{}, false, nil, func(cur runtime.Object) (runtime.Object, error) {
			next := cur.(*testapi.Widget).DeepCopy()
			next.Spec.Color = fmt.Sprint("c", i)
			return next, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

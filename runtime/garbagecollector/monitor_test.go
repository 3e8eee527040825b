package garbagecollector

import (
	"context"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
)

// readOnlyRecorder is a Storage that records whether its lists and watches were asked for
// read-only results.
type readOnlyRecorder struct {
	Storage
	list, watch bool
}

func (r *readOnlyRecorder) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	r.list = request.ReadOnlyResults(ctx)
	return r.Storage.List(ctx, opts)
}

func (r *readOnlyRecorder) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	r.watch = request.ReadOnlyResults(ctx)
	return r.Storage.Watch(ctx, opts)
}

// TestInformersReadOnly: the collector's informers list and watch with
// request.WithReadOnlyResults (they copy the metadata they keep), so a watch cache hands them
// shallow copies of its objects instead of a deep copy per object and event.
func TestInformersReadOnly(t *testing.T) {
	_, stores, _ := newTestGroup(t)
	rec := &readOnlyRecorder{Storage: stores.Widgets}
	lw := &storageListerWatcher{storage: rec}
	ctx := context.Background()
	list, err := lw.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := list.(*objectMetadataList).ResourceVersion
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if !rec.list || !rec.watch {
		t.Errorf("the informers' list asked for read-only results: %v, their watch: %v; want both", rec.list, rec.watch)
	}
}

package garbagecollector

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/apigen-dev/apigen/runtime/request"
)

// monitor is the informer of one resource, as a monitor of kube's GraphBuilder: a client-go
// SharedIndexInformer over the resource's own Storage, holding only metadata (objectMetadata)
// as kube's metadata-only informers do, whose events go to the graph builder.
type monitor struct {
	resource Resource
	informer cache.SharedIndexInformer
	stop     context.CancelFunc
	done     chan struct{}
}

// newMonitor builds the informer of r, sending its events to changes; start it with run.
func newMonitor(r Resource, changes func(*event)) (*monitor, error) {
	kind, apiVersion := r.Kind, r.GroupVersion().String() // shared by every node of the resource
	lw := &storageListerWatcher{storage: r.Storage}
	inf := cache.NewSharedIndexInformerWithOptions(lw, &objectMetadata{}, cache.SharedIndexInformerOptions{})
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { changes(&event{eventType: addEvent, obj: obj, apiVersion: apiVersion, kind: kind}) },
		UpdateFunc: func(oldObj, newObj any) {
			changes(&event{eventType: updateEvent, obj: newObj, oldObj: oldObj, apiVersion: apiVersion, kind: kind})
		},
		DeleteFunc: func(obj any) {
			if unknown, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = unknown.Obj
			}
			changes(&event{eventType: deleteEvent, obj: obj, apiVersion: apiVersion, kind: kind})
		},
	})
	if err != nil {
		return nil, err
	}
	return &monitor{resource: r, informer: inf}, nil
}

// run starts the informer until ctx ends or stop is called.
func (m *monitor) run(ctx context.Context) {
	ctx, m.stop = context.WithCancel(ctx)
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		m.informer.RunWithContext(ctx)
	}()
}

// halt stops the informer and waits until it has.
func (m *monitor) halt() {
	if m.stop != nil {
		m.stop()
		<-m.done
	}
}

// storageListerWatcher lists and watches a Storage in every namespace for a client-go
// informer, turning objects into objectMetadata. It only reads what it gets (it copies the
// metadata it keeps), so it reads with request.WithReadOnlyResults: a watch cache hands it
// its objects as shallow copies instead of a deep copy per event. It declines the
// streaming-list (WatchList) protocol: in process there is no memory to save by it, and a
// list then a watch is what every Storage serves.
type storageListerWatcher struct {
	storage Storage
}

var (
	_ cache.ListerWatcher            = (*storageListerWatcher)(nil)
	_ cache.ListerWatcherWithContext = (*storageListerWatcher)(nil)
)

// List lists with a background context (cache.ListerWatcher; informers use ListWithContext).
func (lw *storageListerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

// Watch watches with a background context (cache.ListerWatcher; informers use WatchWithContext).
func (lw *storageListerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

// ListWithContext lists every object, as metadata.
func (lw *storageListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	internal, err := internalListOptions(opts)
	if err != nil {
		return nil, err
	}
	list, err := lw.storage.List(request.WithReadOnlyResults(request.WithNamespace(ctx, "")), internal)
	if err != nil {
		return nil, err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	out := &objectMetadataList{Items: make([]*objectMetadata, 0, meta.LenList(list))}
	out.ResourceVersion, out.Continue = lm.GetResourceVersion(), lm.GetContinue()
	err = meta.EachListItem(list, func(obj runtime.Object) error {
		m, err := meta.Accessor(obj)
		if err == nil {
			out.Items = append(out.Items, newObjectMetadata(m, false))
		}
		return err
	})
	return out, err
}

// WatchWithContext watches every object, sending metadata.
func (lw *storageListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	internal, err := internalListOptions(opts)
	if err != nil {
		return nil, err
	}
	w, err := lw.storage.Watch(request.WithReadOnlyResults(request.WithNamespace(ctx, "")), internal)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if ev.Type == watch.Error {
			return ev, true
		}
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			return watch.Event{Type: watch.Error, Object: &metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}}, true
		}
		ev.Object = newObjectMetadata(m, ev.Type == watch.Bookmark)
		return ev, true
	}), nil
}

// IsWatchListSemanticsUnSupported tells client-go's reflector to list, then watch.
func (lw *storageListerWatcher) IsWatchListSemanticsUnSupported() bool { return true }

// internalListOptions converts a client-go informer's list options.
func internalListOptions(opts metav1.ListOptions) (*metainternalversion.ListOptions, error) {
	out := &metainternalversion.ListOptions{}
	if err := metainternalversion.Convert_v1_ListOptions_To_internalversion_ListOptions(&opts, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

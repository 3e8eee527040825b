package registry

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// emptyRevision is the resourceVersion of everything EmptyStorage answers.
const emptyRevision = "1"

// EmptyStorage returns the storage of a resource that holds nothing and takes nothing: what
// `apigen create api --storage=interface` scaffolds in new<Kind>Storage until the user
// writes the resource's own storage. Lists are empty (at resourceVersion 1), gets are 404
// NotFound, creates, updates and deletes are 405 MethodNotAllowed, and watches stay open
// without events (with sendInitialEvents, they first send the initial-events-end BOOKMARK).
func EmptyStorage(config UserStorageConfig) storage.Interface {
	return emptyStorage{cfg: config}
}

// emptyStorage is EmptyStorage's.
type emptyStorage struct{ cfg UserStorageConfig }

// notAllowed is the 405 of a write.
func (s emptyStorage) notAllowed(verb string) error {
	return apierrors.NewMethodNotSupported(s.cfg.Resource, verb)
}

// Create implements storage.Interface: 405.
func (s emptyStorage) Create(context.Context, string, runtime.Object, runtime.Object) error {
	return s.notAllowed("create")
}

// Get implements storage.Interface: nothing is there.
func (s emptyStorage) Get(_ context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if opts.IgnoreNotFound {
		return runtime.SetZeroValue(out)
	}
	return storage.NewKeyNotFoundError(key, 1)
}

// GetList implements storage.Interface: an empty list.
func (s emptyStorage) GetList(_ context.Context, _ string, _ storage.ListOptions, listObj runtime.Object) error {
	if err := meta.SetList(listObj, nil); err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	acc, err := meta.ListAccessor(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	acc.SetResourceVersion(emptyRevision)
	return nil
}

// GuaranteedUpdate implements storage.Interface: 405.
func (s emptyStorage) GuaranteedUpdate(context.Context, string, runtime.Object, bool, *storage.Preconditions, storage.UpdateFunc) error {
	return s.notAllowed("update")
}

// Delete implements storage.Interface: 405.
func (s emptyStorage) Delete(context.Context, string, runtime.Object, *storage.Preconditions, storage.ValidateObjectFunc) error {
	return s.notAllowed("delete")
}

// Watch implements storage.Interface: a watch without events, open until stopped or ctx
// ends; with sendInitialEvents, it first sends the initial-events-end BOOKMARK.
func (s emptyStorage) Watch(ctx context.Context, _ string, opts storage.ListOptions) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(1, false)
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents && s.cfg.NewFunc != nil {
		bm := s.cfg.NewFunc()
		acc, err := meta.Accessor(bm)
		if err != nil {
			return nil, storage.NewInternalError(fmt.Sprintf("cannot make a BOOKMARK %T: %v", bm, err))
		}
		acc.SetResourceVersion(emptyRevision)
		acc.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		w.Action(watch.Bookmark, bm)
	}
	go func() {
		<-ctx.Done()
		w.Stop()
	}()
	return w, nil
}

package registry

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// The fields a field selector may name, as for custom resources.
const (
	fieldName      = "metadata.name"
	fieldNamespace = "metadata.namespace"
)

// Get returns the object name in the request's namespace. opts.ResourceVersion "" reads the
// latest state, "0" any. Errors: 404 NotFound, 400 for a namespaced kind without namespace.
func (e *Store) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	key, err := e.keyFor(ctx, name)
	if err != nil {
		return nil, err
	}
	out := e.NewFunc()
	var storageOpts storage.GetOptions
	if opts != nil {
		storageOpts.ResourceVersion = opts.ResourceVersion
	}
	if err := e.Storage.Get(ctx, key, storageOpts, out); err != nil {
		return nil, interpretError(err, e.DefaultQualifiedResource, name)
	}
	return out, nil
}

// List returns the internal list of the objects in the request's namespace (every namespace
// when it has none) that opts selects, paged by opts.Limit and opts.Continue. Field
// selectors may name metadata.name, metadata.namespace and e.SelectableFields (400 otherwise). Errors: 410
// Expired for a compacted resourceVersion or continue token, 400 for a malformed token.
func (e *Store) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	storageOpts, err := e.storageListOptions(opts)
	if err != nil {
		return nil, err
	}
	list := e.NewListFunc()
	if err := e.Storage.GetList(ctx, e.listKey(ctx), storageOpts, list); err != nil {
		return nil, interpretError(err, e.DefaultQualifiedResource, "")
	}
	return list, nil
}

// Watch streams changes to the objects List would return, from opts.ResourceVersion
// (exclusive), with BOOKMARKs when opts.AllowWatchBookmarks and a streaming initial list when
// opts.SendInitialEvents. Errors: as List.
func (e *Store) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	storageOpts, err := e.storageListOptions(opts)
	if err != nil {
		return nil, err
	}
	w, err := e.Storage.Watch(ctx, e.listKey(ctx), storageOpts)
	if err != nil {
		return nil, interpretError(err, e.DefaultQualifiedResource, "")
	}
	return w, nil
}

// storageListOptions translates a request's list options into storage's, validating the
// field selector.
func (e *Store) storageListOptions(opts *metainternalversion.ListOptions) (storage.ListOptions, error) {
	if opts == nil {
		opts = &metainternalversion.ListOptions{}
	}
	attrs, err := e.fieldSelection(opts.FieldSelector)
	if err != nil {
		return storage.ListOptions{}, err
	}
	return storage.ListOptions{
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: opts.ResourceVersionMatch,
		Predicate: storage.SelectionPredicate{
			Label:    opts.LabelSelector,
			Field:    opts.FieldSelector,
			GetAttrs: attrs,
			Limit:    opts.Limit,
			Continue: opts.Continue,
		},
		Recursive:         true,
		ProgressNotify:    opts.AllowWatchBookmarks,
		SendInitialEvents: opts.SendInitialEvents,
	}, nil
}

// GetAttrs returns obj's labels and its selectable fields, metadata.name and
// metadata.namespace, as kube's generic storage.DefaultNamespaceScopedAttr.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, nil, err
	}
	return labels.Set(m.GetLabels()), fields.Set{fieldName: m.GetName(), fieldNamespace: m.GetNamespace()}, nil
}

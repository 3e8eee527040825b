package rest

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Storage is the least a resource's storage implements: New returns an empty internal
// object of the kind it serves (e.g. &db.Database{}).
type Storage interface {
	New() runtime.Object
}

// Scoper says whether the resource lives in namespaces.
type Scoper interface {
	NamespaceScoped() bool
}

// Getter serves GET of one object. Errors are apierrors (*errors.StatusError).
type Getter interface {
	Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error)
}

// Lister serves LIST. NewList returns an empty internal list (e.g. &db.DatabaseList{}).
type Lister interface {
	NewList() runtime.Object
	List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error)
}

// Creater serves POST. obj is decoded, defaulted and converted to internal by the handler.
type Creater interface {
	Create(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (runtime.Object, error)
}

// UpdatedObjectInfo computes the object an update writes from the object currently stored,
// so PUT and PATCH share one read-modify-write path (as kube's rest.UpdatedObjectInfo).
type UpdatedObjectInfo interface {
	// UpdatedObject returns the new internal object; oldObj is nil when nothing is stored.
	UpdatedObject(ctx context.Context, oldObj runtime.Object) (newObj runtime.Object, err error)
}

// Updater serves PUT and PATCH. It returns the stored object and whether it was created
// (forceAllowCreate lets an update create a missing object, as server-side apply does).
type Updater interface {
	Update(ctx context.Context, name string, objInfo UpdatedObjectInfo, forceAllowCreate bool,
		opts *metav1.UpdateOptions) (runtime.Object, bool, error)
}

// GracefulDeleter serves DELETE. It returns the deleted object (or, when finalizers keep it,
// the object with deletionTimestamp set) and whether it was removed from storage now.
type GracefulDeleter interface {
	Delete(ctx context.Context, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error)
}

// CollectionDeleter serves DELETE on the collection, selecting with listOpts.
type CollectionDeleter interface {
	DeleteCollection(ctx context.Context, opts *metav1.DeleteOptions, listOpts *metainternalversion.ListOptions) (runtime.Object, error)
}

// Watcher serves WATCH and LIST?watch=true.
type Watcher interface {
	Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error)
}

// TableConvertor renders objects as a metav1.Table for `kubectl get`. The endpoints hand it
// objects (or lists) in the request's version, as the client sees them.
type TableConvertor interface {
	ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error)
}

// ShortNamesProvider lists the resource's short names for discovery ("db").
type ShortNamesProvider interface {
	ShortNames() []string
}

// CategoriesProvider lists the categories the resource belongs to for discovery ("all").
type CategoriesProvider interface {
	Categories() []string
}

// SingularNameProvider gives the resource's singular name for discovery ("database").
type SingularNameProvider interface {
	GetSingularName() string
}

// StorageVersionProvider is implemented by a storage that knows the group version its
// objects are stored in, as k8s.io/apiserver's rest.StorageVersionProvider: the endpoints
// publish it in the resource's discovery entry as storageVersionHash. Virtual resources
// (reviews) and subresources do not publish one.
type StorageVersionProvider interface {
	// StorageVersion returns the storage group version; the zero GroupVersion when unknown,
	// which publishes no hash.
	StorageVersion() schema.GroupVersion
}

// GroupVersionKindProvider is implemented by a storage whose objects are of a kind other
// than its resource's, such as a /scale subresource serving autoscaling/v1 Scale in any
// group, as k8s.io/apiserver's rest.GroupVersionKindProvider. The endpoints installer then
// decodes and encodes that kind on the wire and lists it in discovery (group, version, kind).
type GroupVersionKindProvider interface {
	// GroupVersionKind returns the kind served under containingGV, the URL's group version.
	GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind
}

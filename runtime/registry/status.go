package registry

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/rest"
)

// StatusStore serves a resource's /status subresource: GET returns the whole object and PUT
// or PATCH changes only what its strategy lets through (status), as kube's StatusREST.
type StatusStore struct {
	store    *Store
	strategy Strategy
}

var (
	_ rest.Getter         = &StatusStore{}
	_ rest.Updater        = &StatusStore{}
	_ rest.TableConvertor = &StatusStore{}
)

// NewStatusStore returns the /status storage of store; strategy's PrepareForUpdate keeps
// spec and metadata from the stored object.
func NewStatusStore(store *Store, strategy Strategy) *StatusStore {
	return &StatusStore{store: store, strategy: strategy}
}

// New returns a new empty internal object of the kind.
func (s *StatusStore) New() runtime.Object { return s.store.New() }

// NamespaceScoped is the main resource's scope.
func (s *StatusStore) NamespaceScoped() bool { return s.store.NamespaceScoped() }

// Get returns the object, as the main resource's Get.
func (s *StatusStore) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return s.store.Get(ctx, name, opts)
}

// Update writes the status objInfo computes, as Store.Update with the status strategy; it
// never creates (forceAllowCreate is ignored) and reports created=false.
func (s *StatusStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return s.store.update(ctx, s.strategy, name, objInfo, false, opts)
}

// ConvertToTable renders as the main resource does.
func (s *StatusStore) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return s.store.ConvertToTable(ctx, obj, tableOptions)
}

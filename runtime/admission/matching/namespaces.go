package matching

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission/informer"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// NamespacesResource is the core group's namespaces, whose storage Namespaces reads.
var NamespacesResource = schema.GroupResource{Resource: "namespaces"}

// Namespaces finds namespaces for namespace selectors and namespaceObject, as kube's
// namespace matcher: from a cache of every namespace, and from storage when the cache does
// not have one (it may lag a namespace just created). The zero value (no core group served)
// knows no namespace: every namespace has no labels.
type Namespaces struct {
	cache  *informer.Cache
	getter rest.Getter
}

// NewNamespaces reads namespaces through lister, the core group's namespaces storage (a
// rest.Getter and rest.Watcher too); nil gives the zero Namespaces.
func NewNamespaces(lister rest.Lister) *Namespaces {
	n := &Namespaces{}
	if src, ok := lister.(informer.Source); ok {
		n.cache = informer.New(src)
	}
	if g, ok := lister.(rest.Getter); ok {
		n.getter = g
	}
	return n
}

// RunCaches keeps the cache of namespaces until ctx ends.
func (n *Namespaces) RunCaches(ctx context.Context) {
	if n != nil && n.cache != nil {
		n.cache.Run(ctx)
	}
}

// Get returns the namespace name (nil, nil when no core group is served). Errors: its 404
// when it does not exist, the storage's error when it cannot be read.
func (n *Namespaces) Get(ctx context.Context, name string) (runtime.Object, error) {
	if n == nil || (n.cache == nil && n.getter == nil) {
		return nil, nil
	}
	if n.cache != nil && n.cache.HasSynced() {
		if obj, ok := n.cache.Get("", name); ok {
			return obj, nil
		}
	}
	if n.getter == nil {
		return nil, nil
	}
	return n.getter.Get(request.WithNamespace(ctx, ""), name, &metav1.GetOptions{})
}

// Labels returns the labels of namespace name; it is a NamespaceLabels.
func (n *Namespaces) Labels(ctx context.Context, name string) (map[string]string, error) {
	obj, err := n.Get(ctx, name)
	if err != nil || obj == nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	return m.GetLabels(), nil
}

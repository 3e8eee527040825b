package registry

import (
	"context"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

// The rest interfaces a Store serves; a missing method breaks the build here.
var (
	_ rest.Storage              = &Store{}
	_ rest.Scoper               = &Store{}
	_ rest.Getter               = &Store{}
	_ rest.Lister               = &Store{}
	_ rest.Creater              = &Store{}
	_ rest.Updater              = &Store{}
	_ rest.GracefulDeleter      = &Store{}
	_ rest.CollectionDeleter    = &Store{}
	_ rest.Watcher              = &Store{}
	_ rest.TableConvertor       = &Store{}
	_ rest.ShortNamesProvider   = &Store{}
	_ rest.CategoriesProvider   = &Store{}
	_ rest.SingularNameProvider = &Store{}
)

// defaultTableConvertor prints NAME and AGE; New(nil) cannot fail.
var defaultTableConvertor, _ = tableconvertor.New(nil)

// New returns a new empty internal object of the kind (NewFunc()).
func (e *Store) New() runtime.Object { return e.NewFunc() }

// NewList returns a new empty internal list (NewListFunc()).
func (e *Store) NewList() runtime.Object { return e.NewListFunc() }

// NamespaceScoped reports Strategy.NamespaceScoped().
func (e *Store) NamespaceScoped() bool { return e.Strategy.NamespaceScoped() }

// ShortNames returns ShortNameList.
func (e *Store) ShortNames() []string { return e.ShortNameList }

// Categories returns CategoryList.
func (e *Store) Categories() []string { return e.CategoryList }

// GetSingularName returns the singular resource name ("database").
func (e *Store) GetSingularName() string { return e.SingularQualifiedResource.Resource }

// ConvertToTable renders obj (an object or list) with TableConvertor, or NAME and AGE
// columns when it is nil.
func (e *Store) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	if e.TableConvertor != nil {
		return e.TableConvertor.ConvertToTable(ctx, obj, tableOptions)
	}
	return defaultTableConvertor.ConvertToTable(ctx, obj, tableOptions)
}

// namespace returns the request's namespace: required, and a valid path segment (400
// otherwise), for namespaced kinds; "" for cluster-scoped ones.
func (e *Store) namespace(ctx context.Context) (string, error) {
	if !e.NamespaceScoped() {
		return "", nil
	}
	ns := request.NamespaceValue(ctx)
	if ns == "" {
		return "", apierrors.NewBadRequest("namespace is required for " + e.DefaultQualifiedResource.String())
	}
	if msgs := isValidPathSegment(ns); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("invalid namespace %q: %v", ns, msgs))
	}
	return ns, nil
}

// keyFor returns the storage key of name in the request's namespace ("/<ns>/<name>" or
// "/<name>"). name must be a valid path segment (400 otherwise) so a key never escapes.
func (e *Store) keyFor(ctx context.Context, name string) (string, error) {
	if name == "" {
		return "", apierrors.NewBadRequest("name is required for " + e.DefaultQualifiedResource.String())
	}
	if msgs := isValidPathSegment(name); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("invalid name %q: %v", name, msgs))
	}
	ns, err := e.namespace(ctx)
	if err != nil {
		return "", err
	}
	if ns == "" {
		return "/" + name, nil
	}
	return "/" + ns + "/" + name, nil
}

// listKey returns the key prefix a list or watch reads: "/<ns>/" within the request's
// namespace, "/" across all namespaces or for cluster-scoped kinds.
func (e *Store) listKey(ctx context.Context) string {
	if ns := request.NamespaceValue(ctx); e.NamespaceScoped() && ns != "" {
		return "/" + ns + "/"
	}
	return "/"
}

// accessor returns obj's metadata or a 500 naming the type.
func accessor(obj runtime.Object) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot access the metadata of %T: %w", obj, err))
	}
	return m, nil
}

// isDryRun reports whether dryRun asks for "All" (the only value the handlers let through).
func isDryRun(dryRun []string) bool {
	return len(dryRun) > 0
}

// kind returns the qualified kind named in 422 Invalid errors: obj's Go type name in the
// resource's group ("Database.db.example.com"), as internal objects carry no TypeMeta. An
// unstructured object (a custom resource) names its kind itself ("CronTab.stable.example.com").
func (e *Store) kind(obj runtime.Object) schema.GroupKind {
	if u, ok := obj.(runtime.Unstructured); ok {
		if kind := u.GetObjectKind().GroupVersionKind().Kind; kind != "" {
			return schema.GroupKind{Group: e.DefaultQualifiedResource.Group, Kind: kind}
		}
	}
	return schema.GroupKind{Group: e.DefaultQualifiedResource.Group, Kind: reflect.Indirect(reflect.ValueOf(obj)).Type().Name()}
}

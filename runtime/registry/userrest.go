package registry

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// The interfaces UserREST serves; a missing method breaks the build here.
var (
	_ rest.Storage              = &UserREST{}
	_ rest.Scoper               = &UserREST{}
	_ rest.Getter               = &UserREST{}
	_ rest.Lister               = &UserREST{}
	_ rest.Watcher              = &UserREST{}
	_ rest.Creater              = &UserREST{}
	_ rest.Updater              = &UserREST{}
	_ rest.GracefulDeleter      = &UserREST{}
	_ rest.CollectionDeleter    = &UserREST{}
	_ rest.TableConvertor       = &UserREST{}
	_ rest.ShortNamesProvider   = &UserREST{}
	_ rest.CategoriesProvider   = &UserREST{}
	_ rest.SingularNameProvider = &UserREST{}
)

// The verbs of a resource whose REST the user writes, as the user's type implements them:
// these are rest's interfaces without the New and NewList UserREST supplies.
type (
	userLister interface {
		List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error)
	}
	userWatcher           = rest.Watcher
	userCreater           = rest.Creater
	userUpdater           = rest.Updater
	userDeleter           = rest.GracefulDeleter
	userDeleterCollection = rest.CollectionDeleter
)

// UserREST serves a resource whose verbs the user writes (+apigen:storage=rest), as
// metrics-server's NodeMetrics and PodMetrics REST: REST answers the verbs it implements
// (rest.Getter's Get, rest.Lister's List, rest.Watcher, rest.Creater, rest.Updater,
// rest.GracefulDeleter, rest.CollectionDeleter) and UserREST supplies the rest of what the
// server needs around it: the kind's New and NewList, its scope and names for discovery,
// the table (REST's own rest.TableConvertor, else TableConvertor), and the label and field
// selectors and the request's namespace applied to what REST's List returns and its Watch
// emits (REST may apply them too: applying them again changes nothing). Verbs lists the
// verbs REST implements for APIGroupInfo.Verbs, so discovery lists only those and the others
// answer 405 MethodNotAllowed; a method of a verb REST lacks answers 405 too.
//
// Writes reach REST as the handlers decode them (defaulted, converted to the internal
// version); no strategy, admission or field management runs for them: REST owns them.
// Generated install code builds one per +apigen:storage=rest kind.
type UserREST struct {
	// REST is the user's object (new<Kind>REST's result).
	REST rest.Getter
	// NewFunc returns a new empty internal object (e.g. &db.DatabaseUsage{}); NewListFunc a
	// new empty internal list.
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// DefaultQualifiedResource names the resource in errors ("databaseusages.db.example.com");
	// SingularQualifiedResource is its singular form.
	DefaultQualifiedResource  schema.GroupResource
	SingularQualifiedResource schema.GroupResource
	// Namespaced says whether the kind lives in namespaces.
	Namespaced bool
	// ShortNameList and CategoryList are published in discovery.
	ShortNameList []string
	CategoryList  []string
	// TableConvertor renders `kubectl get` tables when REST does not implement
	// rest.TableConvertor; nil means NAME and AGE columns.
	TableConvertor rest.TableConvertor
	// SelectableFields are the fields beyond metadata.name and metadata.namespace a field
	// selector may name, as Store.SelectableFields.
	SelectableFields []string
	// AllowedVerbs, when not nil, limits the verbs served to these (kube's names), as
	// +genclient:onlyVerbs limits a Store's through APIGroupInfo.Verbs.
	AllowedVerbs []string
}

// Verbs returns the verbs REST implements (and AllowedVerbs allows), in kube's names and
// sorted: get, list, watch, create, update and patch (rest.Updater), delete,
// deletecollection.
func (u *UserREST) Verbs() []string {
	has := map[string]bool{"get": u.REST != nil}
	_, has["list"] = u.REST.(userLister)
	_, has["watch"] = u.REST.(userWatcher)
	_, has["create"] = u.REST.(userCreater)
	_, has["update"] = u.REST.(userUpdater)
	has["patch"] = has["update"]
	_, has["delete"] = u.REST.(userDeleter)
	_, has["deletecollection"] = u.REST.(userDeleterCollection)
	out := []string{}
	for _, v := range []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"} {
		if has[v] && (u.AllowedVerbs == nil || slices.Contains(u.AllowedVerbs, v)) {
			out = append(out, v)
		}
	}
	return out
}

// New returns NewFunc().
func (u *UserREST) New() runtime.Object { return u.NewFunc() }

// NewList returns NewListFunc().
func (u *UserREST) NewList() runtime.Object { return u.NewListFunc() }

// NamespaceScoped returns Namespaced.
func (u *UserREST) NamespaceScoped() bool { return u.Namespaced }

// ShortNames returns ShortNameList.
func (u *UserREST) ShortNames() []string { return u.ShortNameList }

// Categories returns CategoryList.
func (u *UserREST) Categories() []string { return u.CategoryList }

// GetSingularName returns the singular resource name.
func (u *UserREST) GetSingularName() string { return u.SingularQualifiedResource.Resource }

// ConvertToTable renders obj with REST's own rest.TableConvertor, else TableConvertor, else
// NAME and AGE columns.
func (u *UserREST) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	if tc, ok := u.REST.(rest.TableConvertor); ok {
		return tc.ConvertToTable(ctx, obj, tableOptions)
	}
	if u.TableConvertor != nil {
		return u.TableConvertor.ConvertToTable(ctx, obj, tableOptions)
	}
	return defaultTableConvertor.ConvertToTable(ctx, obj, tableOptions)
}

// notSupported is kube's 405 for a verb the resource does not serve.
func (u *UserREST) notSupported(verb string) error {
	return apierrors.NewMethodNotSupported(u.DefaultQualifiedResource, verb)
}

// Get returns REST's Get.
func (u *UserREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return u.REST.Get(ctx, name, opts)
}

// List returns the items of REST's List that are in the request's namespace (all when it
// has none) and match opts' label and field selectors. REST's list keeps its
// resourceVersion and continue token; items are not paged further (a limit REST ignores is
// ignored, as kube's watch cache ignores it for resourceVersion=0). Errors: 405 when REST
// has no List; 400 for a field selector naming an unsupported field; REST's.
func (u *UserREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	l, ok := u.REST.(userLister)
	if !ok {
		return nil, u.notSupported("list")
	}
	p, err := u.predicate(opts)
	if err != nil {
		return nil, err
	}
	list, err := l.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot read the list %T of %s: %w", list, u.DefaultQualifiedResource, err))
	}
	ns := u.namespace(ctx)
	kept := items[:0]
	for _, item := range items {
		if ok, err := u.matches(p, ns, item); err != nil {
			return nil, err
		} else if ok {
			kept = append(kept, item)
		}
	}
	if len(kept) == len(items) {
		return list, nil
	}
	if err := meta.SetList(list, kept); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot write the list %T of %s: %w", list, u.DefaultQualifiedResource, err))
	}
	return list, nil
}

// Watch streams REST's Watch filtered as List filters, as kube-apiserver's watch cache
// filters: an object that stops matching is sent DELETED once, one that starts matching
// ADDED (what matched at the start is read from REST's List, when it has one, without
// selectors; an event the list already reflects, one a watch from an older resourceVersion
// replays, keeps its own type); BOOKMARK and ERROR events pass. Errors: as List, for Watch.
func (u *UserREST) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	w, ok := u.REST.(userWatcher)
	if !ok {
		return nil, u.notSupported("watch")
	}
	p, err := u.predicate(opts)
	if err != nil {
		return nil, err
	}
	in, err := w.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	ns := u.namespace(ctx)
	if p.Empty() && ns == "" {
		return in, nil
	}
	var seed []runtime.Object
	var seedRV int64
	if l, ok := u.REST.(userLister); ok && !p.Empty() {
		// What matched at the start, so that a change of labels or fields is ADDED or DELETED.
		list, err := l.List(ctx, &metainternalversion.ListOptions{})
		if err == nil {
			seed, _ = meta.ExtractList(list)
			if acc, err := meta.ListAccessor(list); err == nil {
				seedRV, _ = strconv.ParseInt(acc.GetResourceVersion(), 10, 64)
			}
		}
	}
	return newFilteredWatch(in, func(obj runtime.Object) (bool, error) { return u.matches(p, ns, obj) }, seed, seedRV), nil
}

// Create returns REST's Create, or 405.
func (u *UserREST) Create(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (runtime.Object, error) {
	c, ok := u.REST.(userCreater)
	if !ok {
		return nil, u.notSupported("create")
	}
	return c.Create(ctx, obj, opts)
}

// Update returns REST's Update, or 405.
func (u *UserREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, forceAllowCreate bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	up, ok := u.REST.(userUpdater)
	if !ok {
		return nil, false, u.notSupported("update")
	}
	return up.Update(ctx, name, objInfo, forceAllowCreate, opts)
}

// Delete returns REST's Delete, or 405.
func (u *UserREST) Delete(ctx context.Context, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	d, ok := u.REST.(userDeleter)
	if !ok {
		return nil, false, u.notSupported("delete")
	}
	return d.Delete(ctx, name, opts)
}

// DeleteCollection returns REST's DeleteCollection, or 405.
func (u *UserREST) DeleteCollection(ctx context.Context, opts *metav1.DeleteOptions, listOpts *metainternalversion.ListOptions) (runtime.Object, error) {
	d, ok := u.REST.(userDeleterCollection)
	if !ok {
		return nil, u.notSupported("deletecollection")
	}
	return d.DeleteCollection(ctx, opts, listOpts)
}

// predicate validates opts' field selector (metadata.name, metadata.namespace and
// SelectableFields; 400 otherwise) and returns the selection to apply.
func (u *UserREST) predicate(opts *metainternalversion.ListOptions) (storage.SelectionPredicate, error) {
	if opts == nil {
		return storage.SelectionPredicate{}, nil
	}
	fieldsOf := &Store{NewFunc: u.NewFunc, SelectableFields: u.SelectableFields}
	attrs, err := fieldsOf.fieldSelection(opts.FieldSelector)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	return storage.SelectionPredicate{Label: opts.LabelSelector, Field: opts.FieldSelector, GetAttrs: attrs}, nil
}

// namespace is the request's namespace for a namespaced kind, else "".
func (u *UserREST) namespace(ctx context.Context) string {
	if !u.Namespaced {
		return ""
	}
	return request.NamespaceValue(ctx)
}

// matches reports whether obj is in namespace ns (any when "") and matches p.
func (u *UserREST) matches(p storage.SelectionPredicate, ns string, obj runtime.Object) (bool, error) {
	if ns != "" {
		m, err := accessor(obj)
		if err != nil {
			return false, err
		}
		if m.GetNamespace() != ns {
			return false, nil
		}
	}
	ok, err := p.Matches(obj)
	if err != nil {
		return false, apierrors.NewInternalError(fmt.Errorf("cannot select %s: %w", u.DefaultQualifiedResource, err))
	}
	return ok, nil
}

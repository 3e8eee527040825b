package namespace

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apigen-dev/apigen/runtime/admission"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// The rest interfaces REST and FinalizeREST serve; a missing method breaks the build here.
var (
	_ rest.Getter                 = &REST{}
	_ rest.Lister                 = &REST{}
	_ rest.Creater                = &REST{}
	_ rest.Updater                = &REST{}
	_ rest.GracefulDeleter        = &REST{}
	_ rest.Watcher                = &REST{}
	_ rest.TableConvertor         = &REST{}
	_ rest.ShortNamesProvider     = &REST{}
	_ rest.StorageVersionProvider = &REST{}
	_ rest.SingularNameProvider   = &REST{}
	_ rest.Updater                = &FinalizeREST{}
	_ rest.Scoper                 = &FinalizeREST{}
)

// REST serves namespaces as kube-apiserver's pkg/registry/core/namespace/storage.REST: the
// generated registry.Store, except that DELETE of a namespace with spec.finalizers marks it
// Terminating (deletionTimestamp set, status.phase=Terminating) and returns it with 200
// instead of removing it, and deletecollection is not served. The namespace controller then
// empties the namespace and removes the "kubernetes" finalizer through FinalizeREST, which
// removes the namespace once spec.finalizers and metadata.finalizers are both empty.
type REST struct {
	store *registry.Store
}

// FinalizeREST serves PUT /api/v1/namespaces/{name}/finalize, as kube's FinalizeREST: it
// changes spec.finalizers only, and removes the namespace from storage when that leaves a
// terminating namespace with no finalizer of either kind.
type FinalizeREST struct {
	store  *registry.Store
	status *registry.StatusStore
}

// NewREST wraps store, the generated Store of namespaces (core v1), with kube's namespace
// semantics: it replaces store.Strategy by one that sets status.phase=Active and the
// "kubernetes" finalizer on create and keeps spec.finalizers and status on update, and
// returns the storage of "namespaces", of "namespaces/status" (status.phase must agree with
// deletionTimestamp) and of "namespaces/finalize". store.Admission is read at request time,
// so it may be set after NewREST.
func NewREST(store *registry.Store) (*REST, *registry.StatusStore, *FinalizeREST) {
	generated := store.Strategy
	store.Strategy = strategy{Strategy: generated}
	store.ShouldDeleteDuringUpdate = finalized
	status := registry.NewStatusStore(store, statusStrategy{Strategy: generated})
	finalize := &FinalizeREST{store: store, status: registry.NewStatusStore(store, finalizeStrategy{Strategy: generated})}
	return &REST{store: store}, status, finalize
}

// New returns an empty Namespace.
func (r *REST) New() runtime.Object { return r.store.New() }

// NewList returns an empty NamespaceList.
func (r *REST) NewList() runtime.Object { return r.store.NewList() }

// NamespaceScoped returns false: namespaces are cluster-scoped.
func (r *REST) NamespaceScoped() bool { return false }

// ShortNames returns ["ns"].
func (r *REST) ShortNames() []string { return r.store.ShortNames() }

// GetSingularName returns "namespace".
func (r *REST) GetSingularName() string { return r.store.GetSingularName() }

// StorageVersion implements rest.StorageVersionProvider: the Store's, for discovery's
// storageVersionHash, as kube's namespace REST (core v1 Namespace).
func (r *REST) StorageVersion() schema.GroupVersion { return r.store.StorageVersion() }

// Get returns the namespace name, as registry.Store.Get.
func (r *REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, opts)
}

// List lists namespaces, as registry.Store.List.
func (r *REST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, opts)
}

// Watch watches namespaces, as registry.Store.Watch.
func (r *REST) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, opts)
}

// Create creates a namespace (Active, with the "kubernetes" finalizer), as
// registry.Store.Create.
func (r *REST) Create(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, opts)
}

// Update updates a namespace's metadata and spec but not spec.finalizers or status, as
// registry.Store.Update. An update that leaves a terminating namespace without
// metadata.finalizers removes it only when spec.finalizers are empty too (finalized).
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, forceAllowCreate bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, forceAllowCreate, opts)
}

// GetResetFields returns the fields a write of namespaces never owns (status), as kube's
// namespace REST.
func (r *REST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable renders NAME, STATUS and AGE.
func (r *REST) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// Delete deletes a namespace as kube's namespace REST.Delete: the first DELETE (after the
// admission chain's validating plugins and opts.Preconditions, 409 Conflict when they fail)
// sets deletionTimestamp and status.phase=Terminating; while spec.finalizers is not empty the
// namespace stays and is returned with deleted=false (200), so a second DELETE is a no-op
// returning it. With spec.finalizers empty it is deleted as any object
// (registry.Store.Delete: metadata.finalizers still keep it). Errors: 404 NotFound, 409
// Conflict, the admission chain's refusal, storage errors.
func (r *REST) Delete(ctx context.Context, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	obj, err := r.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if err := checkPreconditions(name, opts.Preconditions, ns); err != nil {
		return nil, false, err
	}
	dryRun := slices.Contains(opts.DryRun, metav1.DryRunAll)
	if ns.DeletionTimestamp == nil {
		if err := r.store.Admission.Validate(ctx, deleteAttributes(ctx, ns, dryRun)); err != nil {
			return nil, false, err
		}
		out, err := r.markTerminating(ctx, ns, opts.Preconditions, dryRun)
		if err != nil {
			return nil, false, err
		}
		if len(out.Spec.Finalizers) > 0 || dryRun {
			return out, false, nil
		}
		ns = out
	}
	if len(ns.Spec.Finalizers) > 0 {
		return ns, false, nil
	}
	return r.store.Delete(ctx, name, opts)
}

// markTerminating sets deletionTimestamp (unless set) and status.phase=Terminating on the
// stored namespace, as the GuaranteedUpdate of kube's namespace REST.Delete.
func (r *REST) markTerminating(ctx context.Context, ns *corev1.Namespace, p *metav1.Preconditions,
	dryRun bool) (*corev1.Namespace, error) {
	mark := func(cur runtime.Object) (runtime.Object, error) {
		out := cur.DeepCopyObject().(*corev1.Namespace)
		if out.DeletionTimestamp == nil {
			now := metav1.Now().Rfc3339Copy() // what storage keeps: whole seconds
			var zero int64
			out.DeletionTimestamp, out.DeletionGracePeriodSeconds = &now, &zero
		}
		out.Status.Phase = corev1.NamespaceTerminating
		out.ResourceVersion = ""
		return out, nil
	}
	if dryRun {
		out, err := mark(ns)
		if err != nil {
			return nil, err
		}
		marked := out.(*corev1.Namespace)
		marked.ResourceVersion = ns.ResourceVersion
		return marked, nil
	}
	var preconditions *storage.Preconditions
	if p != nil {
		preconditions = &storage.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}
	}
	out := &corev1.Namespace{}
	if err := r.store.Storage.GuaranteedUpdate(ctx, "/"+ns.Name, out, false, preconditions, mark); err != nil {
		return nil, storageError(err, ns.Name)
	}
	return out, nil
}

// New returns an empty Namespace.
func (f *FinalizeREST) New() runtime.Object { return f.store.New() }

// NamespaceScoped returns false: namespaces are cluster-scoped.
func (f *FinalizeREST) NamespaceScoped() bool { return false }

// GetResetFields returns the fields a write of /finalize never owns (status), as kube's
// FinalizeREST.
func (f *FinalizeREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return f.status.GetResetFields()
}

// Update writes the spec.finalizers of the object objInfo computes and nothing else (409
// Conflict on a stale resourceVersion, 422 on an invalid finalizer name, 404 when the
// namespace does not exist: finalize never creates). When that leaves a terminating
// namespace with no finalizers, it is removed from storage, and the last state is returned.
func (f *FinalizeREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := f.status.Update(ctx, name, objInfo, false, opts)
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if opts != nil && slices.Contains(opts.DryRun, metav1.DryRunAll) {
		return ns, false, nil
	}
	if ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) > 0 || len(ns.Finalizers) > 0 {
		return ns, false, nil
	}
	uid, rv := ns.UID, ns.ResourceVersion
	err = f.store.Storage.Delete(ctx, "/"+name, &corev1.Namespace{}, &storage.Preconditions{UID: &uid, ResourceVersion: &rv}, nil)
	if err != nil && !storage.IsNotFound(err) && !storage.IsConflict(err) { // someone else got there first
		return nil, false, storageError(err, name)
	}
	return ns, false, nil
}

// finalized is the namespaces' registry.Store.ShouldDeleteDuringUpdate, as kube's namespace
// storage: a namespace being deleted goes once its spec.finalizers are empty too, not as soon
// as an update (a status or label change while it terminates) leaves metadata.finalizers
// empty.
func finalized(obj runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return !ok || len(ns.Spec.Finalizers) == 0
}

// checkPreconditions is the 409 Conflict kube returns for a failed delete precondition.
func checkPreconditions(name string, p *metav1.Preconditions, ns *corev1.Namespace) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != ns.UID {
		return apierrors.NewConflict(corev1.Resource("namespaces"), name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, ns.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != ns.ResourceVersion {
		return apierrors.NewConflict(corev1.Resource("namespaces"), name,
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
				*p.ResourceVersion, ns.ResourceVersion))
	}
	return nil
}

// storageError maps a storage error of namespace name to the apierrors a client sees.
func storageError(err error, name string) error {
	switch {
	case storage.IsNotFound(err):
		return apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	case storage.IsConflict(err):
		return apierrors.NewConflict(corev1.Resource("namespaces"), name, err)
	default:
		if _, ok := err.(apierrors.APIStatus); ok {
			return err
		}
		return apierrors.NewInternalError(err)
	}
}

// deleteAttributes describes the DELETE of ns for the admission chain.
func deleteAttributes(ctx context.Context, ns *corev1.Namespace, dryRun bool) *admission.Attributes {
	a := &admission.Attributes{
		Operation: admission.Delete,
		Kind:      corev1.SchemeGroupVersion.WithKind("Namespace"),
		Resource:  corev1.SchemeGroupVersion.WithResource("namespaces"),
		Name:      ns.Name,
		OldObject: ns,
		DryRun:    dryRun,
	}
	if info, ok := request.RequestInfoFrom(ctx); ok && info.Subresource != "" {
		a.Subresource = info.Subresource
	}
	if u, ok := request.UserFrom(ctx); ok {
		a.User = u
	}
	return a
}

package namespace

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// DefaultRetryInterval is how long the Controller waits before looking again at a
// terminating namespace whose content is not gone yet (objects held by finalizers) or whose
// deletion failed.
const DefaultRetryInterval = time.Second

// Namespaces is what the Controller reads namespaces through: REST (or the registry.Store it
// wraps) is one.
type Namespaces interface {
	rest.Getter
	rest.Lister
	rest.Watcher
}

// Controller is kube-controller-manager's namespace controller for one server chain: it
// watches namespaces and, for each one with a deletionTimestamp and the "kubernetes"
// finalizer, calls every ContentDeleter until all report nothing left, then removes the
// finalizer through the finalize subresource (which removes the namespace). It sets no
// status conditions. Build it with NewController, add deleters with AddContentDeleter, and
// run it with Run (as the "start-namespace-controller" post-start hook).
type Controller struct {
	namespaces Namespaces
	status     rest.Updater
	finalize   rest.Updater
	log        *slog.Logger
	// RetryInterval is the wait before a namespace is looked at again; zero means
	// DefaultRetryInterval. Set it before Run.
	RetryInterval time.Duration

	mu       sync.Mutex
	deleters []ContentDeleter
	pending  map[string]bool
	wake     chan struct{}
}

// NewController returns a controller over namespaces, reporting the
// NamespaceDeletionContentFailure and NamespaceContentRemaining conditions through status
// (the namespaces/status storage; nil reports none), removing the finalizer through finalize
// (FinalizeREST), calling deleters; log may be nil (logs are discarded).
func NewController(namespaces Namespaces, status, finalize rest.Updater, log *slog.Logger, deleters ...ContentDeleter) *Controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{namespaces: namespaces, status: status, finalize: finalize, log: log, deleters: slices.Clone(deleters),
		pending: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// AddContentDeleter adds d to the deleters every terminating namespace is emptied through,
// e.g. the extensions server's deleter of custom resources. It is safe to call at any time,
// before or while the controller runs; d takes part from the next look at each namespace.
func (c *Controller) AddContentDeleter(d ContentDeleter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deleters = append(c.deleters, d)
}

// Run watches namespaces and finalizes terminating ones until ctx ends. Watch failures are
// retried after RetryInterval.
func (c *Controller) Run(ctx context.Context) {
	go c.work(ctx)
	for ctx.Err() == nil {
		if err := c.watchOnce(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("namespace controller: watch failed", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(c.retryInterval()):
		}
	}
}

// retryInterval returns RetryInterval or its default.
func (c *Controller) retryInterval() time.Duration {
	if c.RetryInterval > 0 {
		return c.RetryInterval
	}
	return DefaultRetryInterval
}

// watchOnce lists namespaces, queues the terminating ones, then queues every terminating one
// the watch from the list's resourceVersion reports, until the watch ends.
func (c *Controller) watchOnce(ctx context.Context) error {
	list, err := c.namespaces.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, item := range items {
		c.enqueueIfTerminating(item)
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	w, err := c.namespaces.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: lm.GetResourceVersion()})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				c.enqueueIfTerminating(ev.Object)
			case watch.Error:
				return apierrors.FromObject(ev.Object)
			}
		}
	}
}

// enqueueIfTerminating queues obj's name when it is a namespace being deleted.
func (c *Controller) enqueueIfTerminating(obj runtime.Object) {
	if ns, ok := obj.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil {
		c.enqueue(ns.Name)
	}
}

// enqueue marks name for a look by the worker.
func (c *Controller) enqueue(name string) {
	c.mu.Lock()
	c.pending[name] = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// work looks at the queued namespaces, one at a time in name order, until ctx ends; one that
// is not done is queued again after RetryInterval.
func (c *Controller) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		c.mu.Lock()
		names := make([]string, 0, len(c.pending))
		for name := range c.pending {
			names = append(names, name)
		}
		clear(c.pending)
		c.mu.Unlock()
		sort.Strings(names)
		for _, name := range names {
			done, err := c.sync(ctx, name)
			if err != nil && ctx.Err() == nil {
				c.log.Warn("namespace controller: cannot delete the namespace's content", "namespace", name, "err", err)
			}
			if !done && ctx.Err() == nil {
				time.AfterFunc(c.retryInterval(), func() { c.enqueue(name) })
			}
		}
	}
}

// sync empties the terminating namespace name and removes its "kubernetes" finalizer; done
// is false when content remains or a step failed (the namespace is looked at again).
func (c *Controller) sync(ctx context.Context, name string) (done bool, err error) {
	obj, err := c.namespaces.Get(ctx, name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	ns := obj.(*corev1.Namespace)
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return true, nil
	}
	c.mu.Lock()
	deleters := slices.Clone(c.deleters)
	c.mu.Unlock()
	remaining := 0
	for _, d := range deleters {
		n, err := d.DeleteNamespaceContent(ctx, name)
		if err != nil {
			c.reportConditions(ctx, ns, 0, err)
			return false, err
		}
		remaining += n
	}
	c.reportConditions(ctx, ns, remaining, nil)
	if remaining > 0 {
		c.log.Debug("namespace controller: content remains", "namespace", name, "remaining", remaining)
		return false, nil
	}
	_, _, err = c.finalize.Update(ctx, name, removeKubernetesFinalizer{uid: ns.UID}, false, &metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err == nil {
		c.log.Info("namespace controller: namespace emptied and finalized", "namespace", name)
	}
	return err == nil, err
}

// removeKubernetesFinalizer is the finalize update the controller makes: spec.finalizers
// without "kubernetes", on the namespace of uid only.
type removeKubernetesFinalizer struct {
	uid types.UID
}

// errUIDChangedConflict is the 409 Conflict of an update meant for a namespace that was
// deleted and created again under name.
func errUIDChangedConflict(name string) error {
	return apierrors.NewConflict(corev1.Resource("namespaces"), name, errUIDChanged)
}

// errUIDChanged is the cause of the Conflict when a namespace was re-created under the same
// name while the controller emptied the old one.
var errUIDChanged = errors.New("the namespace was deleted and created again")

// UpdatedObject returns old without the "kubernetes" finalizer; 409 Conflict when old is
// another namespace of the same name than the one the controller looked at.
func (r removeKubernetesFinalizer) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	ns, ok := old.(*corev1.Namespace)
	if !ok || ns == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), "")
	}
	if r.uid != ns.UID {
		return nil, errUIDChangedConflict(ns.Name)
	}
	ns.Spec.Finalizers = slices.DeleteFunc(slices.Clone(ns.Spec.Finalizers), func(f corev1.FinalizerName) bool {
		return f == corev1.FinalizerKubernetes
	})
	return ns, nil
}

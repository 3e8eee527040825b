package apiextensions

import (
	"context"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
)

// retryInterval is how soon a CRD whose objects are not all gone yet is looked at again.
const retryInterval = time.Second

// controller keeps the served custom resources and the CRDs' status in line with the stored
// CRDs: one work queue of CRD names, fed by a watch of the CRD store, as upstream's
// NamingConditionController, establishing controller and finalizer controller share an
// informer. It is only used from the post-start hook's goroutines.
type controller struct {
	ext   *Extensions
	queue workqueue.TypedRateLimitingInterface[string]

	// mu guards cache and served.
	mu sync.Mutex
	// cache holds the CRDs last seen by the watch, by name, for the name conflict checks.
	cache map[string]*apiextensionsv1.CustomResourceDefinition
	// served maps the name of each CRD the Handler serves to the key of the Definition it
	// was last Set with (see serve), so that a CRD is Set again only when it changed.
	served map[string]string
}

// startControllers is the post-start hook ControllersHookName: it lists the CRDs (retrying
// until etcd answers) and serves every one whose names are accepted before returning, so
// that /readyz turns true only once the CRDs stored before a restart are served; then it
// keeps watching until ctx ends.
func (e *Extensions) startControllers(ctx context.Context) error {
	c := &controller{ext: e, cache: map[string]*apiextensionsv1.CustomResourceDefinition{}, served: map[string]string{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](50*time.Millisecond, 5*time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "crd"})}
	// As kube-apiserver's readiness waits for the CRD informer to sync, the hook retries the
	// first list until it succeeds (or the server stops).
	rv, err := c.relist(ctx)
	for delay := 100 * time.Millisecond; err != nil; delay = min(2*delay, 2*time.Second) {
		c.ext.log.Warn("cannot list CustomResourceDefinitions; retrying", "err", err)
		select {
		case <-ctx.Done():
			return nil // the server is stopping
		case <-time.After(delay):
		}
		rv, err = c.relist(ctx)
	}
	for c.queue.Len() > 0 {
		c.processNext(ctx)
	}
	close(e.served)
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	go c.watchLoop(ctx, rv)
	go func() {
		for c.processNext(ctx) {
		}
	}()
	return nil
}

// relist lists every CRD, replaces the cache and enqueues every CRD listed or forgotten; it
// returns the list's resourceVersion to watch from.
func (c *controller) relist(ctx context.Context) (string, error) {
	obj, err := c.ext.crds.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return "", err
	}
	list := obj.(*apiextensionsv1.CustomResourceDefinitionList)
	c.mu.Lock()
	old := c.cache
	c.cache = make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list.Items))
	for i := range list.Items {
		c.cache[list.Items[i].Name] = &list.Items[i]
	}
	c.mu.Unlock()
	for name := range old {
		c.queue.Add(name)
	}
	for i := range list.Items {
		c.queue.Add(list.Items[i].Name)
	}
	return list.ResourceVersion, nil
}

// watchLoop watches the CRDs from rv, updating the cache and enqueueing each changed CRD and
// the other CRDs of its group (whose names may have been waiting for it); when the watch
// ends it lists again and watches from there, until ctx ends.
func (c *controller) watchLoop(ctx context.Context, rv string) {
	for ctx.Err() == nil {
		if rv != "" {
			c.watch(ctx, rv)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		var err error
		if rv, err = c.relist(ctx); err != nil {
			c.ext.log.Warn("cannot list CustomResourceDefinitions", "err", err)
			rv = ""
		}
	}
}

// watch handles the events of one watch from rv until it ends.
func (c *controller) watch(ctx context.Context, rv string) {
	w, err := c.ext.crds.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: rv, Watch: true})
	if err != nil {
		c.ext.log.Warn("cannot watch CustomResourceDefinitions", "err", err)
		return
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		crd, ok := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return // an ERROR event (e.g. 410 Gone): list again
		}
		if ev.Type == watch.Deleted {
			c.mu.Lock()
			delete(c.cache, crd.Name)
			c.mu.Unlock()
		} else {
			c.remember(crd)
		}
		c.mu.Lock()
		var mates []string
		for name, other := range c.cache {
			if other.Spec.Group == crd.Spec.Group && name != crd.Name {
				mates = append(mates, name)
			}
		}
		c.mu.Unlock()
		c.queue.Add(crd.Name)
		for _, name := range mates {
			c.queue.Add(name)
		}
	}
}

// processNext reconciles the next queued CRD; it returns false once the queue is shut down.
func (c *controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	retry, err := c.reconcile(ctx, name)
	switch {
	case err != nil && ctx.Err() == nil:
		c.ext.log.Warn("cannot reconcile CustomResourceDefinition", "name", name, "err", err)
		c.queue.AddRateLimited(name)
	case retry:
		c.queue.Forget(name)
		c.queue.AddAfter(name, retryInterval)
	default:
		c.queue.Forget(name)
	}
	return true
}

// reconcile brings the CRD name's serving and status in line with its stored state; retry
// asks for another look soon (objects of a deleted CRD remain).
func (c *controller) reconcile(ctx context.Context, name string) (retry bool, err error) {
	obj, err := c.ext.crds.Get(ctx, name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		c.stopServing(name)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	if crd.DeletionTimestamp != nil {
		return c.finalize(ctx, crd)
	}
	return false, c.establish(ctx, crd)
}

// others returns the cached CRDs of group other than name.
func (c *controller) others(group, name string) []*apiextensionsv1.CustomResourceDefinition {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*apiextensionsv1.CustomResourceDefinition
	for n, crd := range c.cache {
		if n != name && crd.Spec.Group == group {
			out = append(out, crd)
		}
	}
	return out
}

// updateStatus applies mutate to the status of crd (as read) and, when that changes it,
// writes it through the status subresource, applying mutate to the stored CRD again (a
// conflicting write in between is retried by the store).
func (c *controller) updateStatus(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, mutate func(*apiextensionsv1.CustomResourceDefinition)) error {
	probe := crd.DeepCopy()
	mutate(probe)
	if equality.Semantic.DeepEqual(probe.Status, crd.Status) {
		return nil
	}
	out, _, err := c.ext.status.Update(ctx, crd.Name, updateFunc(func(old runtime.Object) (runtime.Object, error) {
		o := old.(*apiextensionsv1.CustomResourceDefinition)
		mutate(o)
		return o, nil
	}), false, &metav1.UpdateOptions{})
	if written, ok := out.(*apiextensionsv1.CustomResourceDefinition); err == nil && ok {
		c.remember(written)
	}
	return err
}

// remember puts crd in the cache unless the cache holds a newer version of it (a greater
// resourceVersion). The controller remembers the status it writes at once, as upstream's
// mutation cache, so that the next CRD of the group reconciled sees the names just accepted
// even before the watch delivers them.
func (c *controller) remember(crd *apiextensionsv1.CustomResourceDefinition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.cache[crd.Name]; old != nil && old.UID == crd.UID {
		oldRV, err1 := strconv.ParseUint(old.ResourceVersion, 10, 64)
		newRV, err2 := strconv.ParseUint(crd.ResourceVersion, 10, 64)
		if err1 == nil && err2 == nil && oldRV > newRV {
			return
		}
	}
	c.cache[crd.Name] = crd
}

// updateFunc is a rest.UpdatedObjectInfo computing the new object from the stored one.
type updateFunc func(old runtime.Object) (runtime.Object, error)

// UpdatedObject calls f with the stored object (a copy the function may change).
func (f updateFunc) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(apiextensionsv1.Resource("customresourcedefinitions"), "")
	}
	return f(old)
}

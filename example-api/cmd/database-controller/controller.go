package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/informers/externalversions"
	dbv1listers "github.com/apigen-dev/apigen/example-api/pkg/generated/listers/db/v1"
)

// controller reconciles the status of Databases: a work queue of namespace/name keys fed by a
// typed shared informer, read back through its lister.
type controller struct {
	client   versioned.Interface
	factory  externalversions.SharedInformerFactory
	informer cache.SharedIndexInformer
	lister   dbv1listers.DatabaseLister
	queue    workqueue.TypedRateLimitingInterface[string]
	status   statusWriter
	// events records an Event on each Database whose status the controller writes.
	events record.EventRecorder
	out    io.Writer
	outMu  sync.Mutex
}

// newController wires a controller to the factory's typed Database informer; events records
// an Event on each Database made Ready; out receives one line per status written and per
// failure.
func newController(client versioned.Interface, factory externalversions.SharedInformerFactory, status statusWriter,
	events record.EventRecorder, out io.Writer) *controller {
	databases := factory.Db().V1().Databases()
	c := &controller{
		client:   client,
		factory:  factory,
		informer: databases.Informer(),
		lister:   databases.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "databases"}),
		status: status,
		events: events,
		out:    out,
	}
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	// The handler is registered before the factory starts; AddEventHandler fails only on a
	// stopped informer.
	_, _ = c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	return c
}

// run starts the informers, waits for them to sync, and reconciles with workers goroutines
// until ctx ends; it returns an error only when the informer cannot sync.
func (c *controller) run(ctx context.Context, workers int) error {
	defer c.queue.ShutDown()
	c.factory.Start(ctx.Done())
	defer c.factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), c.informer.HasSynced) {
		return fmt.Errorf("the Database informer did not sync: %w", context.Cause(ctx))
	}
	c.logf("synced %d databases; writing status with %s", len(c.informer.GetStore().ListKeys()), c.status.name())
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// processNext reconciles one key from the queue, requeueing it with backoff on failure; it
// returns false once the queue is shut down.
func (c *controller) processNext(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if err := c.reconcile(ctx, key); err != nil {
		c.logf("reconcile %s: %v (retrying)", key, err)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// reconcile brings the status of the Database named by key (namespace/name) up to date. A
// Database that no longer exists needs nothing; a conflict is an error, so the key is retried
// with the lister's newer object.
func (c *controller) reconcile(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key this controller queued
	}
	db, err := c.lister.Databases(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	want := desiredStatus(db)
	if statusEqual(db.Status, want) {
		return nil
	}
	if err := c.status.write(ctx, c.client, db, want); err != nil {
		return err
	}
	c.logf("database %s: phase %s, %d ready replicas, generation %d", key, want.Phase, want.ReadyReplicas, want.ObservedGeneration)
	// As a kube controller reports what it did: `kubectl describe database` lists it.
	c.events.Eventf(db, corev1.EventTypeNormal, readyReason, "Database is %s with %d ready replicas (generation %d)",
		want.Phase, want.ReadyReplicas, want.ObservedGeneration)
	return nil
}

// desiredStatus is the status the controller wants db to have: Ready, with every replica
// ready, as of db's generation; conditions are kept.
func desiredStatus(db *dbv1.Database) dbv1.DatabaseStatus {
	replicas := int32(1)
	if db.Spec.Replicas != nil {
		replicas = *db.Spec.Replicas
	}
	return dbv1.DatabaseStatus{Phase: dbv1.DatabaseReady, ReadyReplicas: replicas, ObservedGeneration: db.Generation, Conditions: db.Status.Conditions}
}

// statusEqual compares the fields the controller owns.
func statusEqual(a, b dbv1.DatabaseStatus) bool {
	return a.Phase == b.Phase && a.ReadyReplicas == b.ReadyReplicas && a.ObservedGeneration == b.ObservedGeneration
}

// logf writes one timestamped line to the controller's output.
func (c *controller) logf(format string, args ...any) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	fmt.Fprintf(c.out, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), fmt.Sprintf(format, args...))
}

// readyReason is the reason of the Event recorded when a Database's status becomes Ready.
const readyReason = "Ready"

// fieldManager is the controller's field manager on the server.
const fieldManager = "database-controller"

// updateOptions are the options of every status update.
var updateOptions = metav1.UpdateOptions{FieldManager: fieldManager}

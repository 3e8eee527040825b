package storageversionmigrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	svmv1 "k8s.io/api/storagemigration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	svmclient "k8s.io/client-go/kubernetes/typed/storagemigration/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// ControllerName is the controller's name: the field manager of its writes, as
// kube-controller-manager's storage version migrator ("storage-version-migrator-controller").
const ControllerName = "storage-version-migrator-controller"

// ContinueAnnotation is the annotation in which a running migration keeps its progress: the
// continue token of the next page of the resource's list. A migrator that restarts (the
// server restarted, another replica took the controller over) continues from it instead of
// starting over; it is removed when the migration ends. Kubernetes' controller, which lists
// from a cache in one go, keeps no such progress.
const ContinueAnnotation = "storagemigration.apigen.dev/continue"

// DefaultPageSize is the number of objects one list page asks for, as client-go's pager's
// default (500).
const DefaultPageSize = 500

// The reasons of the conditions the controller sets, as Kubernetes' controller's.
const (
	reasonRunning   = "StorageVersionMigrationInProgress"
	reasonSucceeded = "StorageVersionMigrationSucceeded"
	reasonFailed    = "StorageVersionMigrationFailed"
)

// Config is what the controller works with: clients of the server it migrates, usually its
// loopback client.
type Config struct {
	// Migrations is the client of storagemigration.k8s.io/v1 StorageVersionMigrations.
	Migrations svmclient.StorageVersionMigrationsGetter
	// Dynamic reads and rewrites the migrated resources' objects.
	Dynamic dynamic.Interface
	// Discovery finds the served version and scope of a migration's resource.
	Discovery discovery.DiscoveryInterface
	// PageSize is the limit of each list page; 0 means DefaultPageSize.
	PageSize int64
	// Log receives the controller's progress and errors; nil discards them.
	Log *slog.Logger
}

// Controller is the storage version migrator, as kube-controller-manager's
// storageversionmigrator controller: for each StorageVersionMigration not yet finished it
// sets the condition Running (and status.resourceVersion, the resource's list
// resourceVersion then), pages through every object of spec.resource (limit/continue,
// keeping the next page's token in ContinueAnnotation), re-applies each (see migrate) so that
// the server re-encodes it in the resource's current storage version, and sets Succeeded,
// or Failed with the reason (the resource is not served; an object cannot be written, e.g.
// 422 from a validating webhook). An error that may pass (timeouts, throttling, 503, 500 such
// as a conversion webhook that does not answer, the connection, the server stopping)
// retries the migration later, with the workqueue's backoff, from its last saved page, where
// Kubernetes' controller fails it. Migrations run one at a time, in the order they are seen.
type Controller struct {
	cfg   Config
	log   *slog.Logger
	queue workqueue.TypedRateLimitingInterface[string]
}

// New returns the controller; Run starts it.
func New(cfg Config) *Controller {
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{cfg: cfg, log: log.With("controller", ControllerName)}
}

// Run migrates until ctx ends: it watches StorageVersionMigrations (an informer over
// Migrations) and works through them with one worker. It returns nil when ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: ControllerName})
	defer c.queue.ShutDown()
	rc := c.cfg.Migrations.StorageVersionMigrations()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return rc.List(ctx, opts)
		},
		WatchFuncWithContext: rc.Watch,
	}
	informer := cache.NewSharedIndexInformer(lw, &svmv1.StorageVersionMigration{}, 0, cache.Indexers{})
	add := func(obj any) {
		if svm, ok := obj.(*svmv1.StorageVersionMigration); ok && !finished(svm) {
			c.queue.Add(svm.Name)
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj any) { add(obj) },
	}); err != nil {
		return err
	}
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for c.next(ctx) {
	}
	return nil
}

// next works on the next queued migration; false once the queue is shut down.
func (c *Controller) next(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	if err := c.Sync(ctx, name); err != nil {
		if ctx.Err() == nil {
			c.log.Warn("storage version migration: retrying", "migration", name, "err", err)
			c.queue.AddRateLimited(name)
		}
		return true
	}
	c.queue.Forget(name)
	return true
}

// Sync runs the migration name to its end: Succeeded or Failed. It returns an error only
// for a failure that may pass (the migration is to be retried, from its last page); a
// migration that is gone or finished is left alone.
func (c *Controller) Sync(ctx context.Context, name string) error {
	svms := c.cfg.Migrations.StorageVersionMigrations()
	svm, err := svms.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if finished(svm) {
		return nil
	}
	target, err := c.resolve(svm.Spec.Resource)
	var notServed *notServedError
	if errors.As(err, &notServed) {
		return c.finish(ctx, svm, svmv1.MigrationFailed, reasonFailed, notServed.Error())
	}
	if err != nil {
		return err
	}
	log := c.log.With("migration", name, "resource", target.gvr.String())
	if !isTrue(svm, svmv1.MigrationRunning) {
		if svm, err = c.start(ctx, svm, target); err != nil {
			return err
		}
		log.Info("storage version migration: started", "resourceVersion", svm.Status.ResourceVersion)
	}
	token := svm.Annotations[ContinueAnnotation]
	if token != "" {
		log.Info("storage version migration: continuing from the last page")
	}
	migrated := 0
	for {
		list, err := target.client().List(ctx, metav1.ListOptions{Limit: c.cfg.PageSize, Continue: token})
		if token != "" && (apierrors.IsResourceExpired(err) || apierrors.IsBadRequest(err)) {
			// The token's revision is compacted (410 Expired), or the annotation holds no
			// token of this list (400): list again from the start. The objects already
			// rewritten are not written again (their bytes are the same).
			log.Info("storage version migration: the saved continue token cannot be used; listing again from the start", "err", err)
			token = ""
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot list %s: %w", target.gvr, err)
		}
		for i := range list.Items {
			if err := c.migrate(ctx, target, &list.Items[i]); err != nil {
				if retriable(err) || ctx.Err() != nil {
					return err
				}
				msg := fmt.Sprintf("cannot migrate %s %s: %v", target.gvr.GroupResource(), objectName(&list.Items[i]), err)
				return c.finish(ctx, svm, svmv1.MigrationFailed, reasonFailed, msg)
			}
			migrated++
		}
		token = list.GetContinue()
		if token == "" {
			break
		}
		if svm, err = c.saveProgress(ctx, svm, token); err != nil {
			return err
		}
	}
	log.Info("storage version migration: succeeded", "objects", migrated)
	return c.finish(ctx, svm, svmv1.MigrationSucceeded, reasonSucceeded, "")
}

// retriable reports whether err may pass: the server is busy or going away, or the request
// did not reach it. Other errors fail the migration, as Kubernetes' controller's do.
func retriable(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true // a connection error, a canceled context
	}
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err)
}

// pollInterval is how often the helpers below retry a conflicting write of the migration.
const pollInterval = 50 * time.Millisecond

// retryOnConflict runs write until it succeeds, fails otherwise than with a conflict, or
// ctx ends.
func retryOnConflict(ctx context.Context, write func() error) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(context.Context) (bool, error) {
		last = write()
		if apierrors.IsConflict(last) {
			return false, nil
		}
		return true, last
	})
	if err != nil && last != nil {
		return last
	}
	return err
}

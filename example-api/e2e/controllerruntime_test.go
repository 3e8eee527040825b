package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	dbv1ac "github.com/apigen-dev/apigen/example-api/pkg/generated/applyconfiguration/db/v1"
)

// reconcilerManager is the field manager of the controller-runtime reconciler's applies.
const reconcilerManager = "cr-reconciler"

// TestControllerRuntimeManager runs a controller-runtime manager against example-apiserver, as
// a kubebuilder operator would: leader election on a coordination.k8s.io Lease, a RESTMapper
// from (aggregated) discovery, a Database controller whose reconciler reads from the
// manager's informer cache and writes with server-side apply (client.Apply of the generated
// applyconfigurations, to the object and to its status subresource). A Database created
// through a second, uncached client is reconciled: its label and status are set, and its
// managedFields hold the creator's Update entry and the reconciler's two Apply entries
// (one for the status subresource), as kube-apiserver records them. An Update from a stale
// copy is a Conflict; a deleted Database leaves the manager's cache.
func TestControllerRuntimeManager(t *testing.T) {
	srv := startServer(t)
	logs := &syncLog{}
	ctrllog.SetLogger(logs.logger())

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, dbv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	cfg := unthrottledConfig(srv.config)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Logger:                  logs.logger(),
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "apigen-e2e-database",
		LeaderElectionNamespace: "kube-system",
	})
	if err != nil {
		t.Fatalf("cannot create the manager: %v", err)
	}
	reconciled := &reconcileCounter{}
	err = ctrl.NewControllerManagedBy(mgr).For(&dbv1.Database{}).Complete(&databaseReconciler{client: mgr.GetClient(), counter: reconciled})
	if err != nil {
		t.Fatalf("cannot build the controller: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("the manager ended with: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the manager did not stop within 30s")
		}
		if t.Failed() {
			t.Logf("controller-runtime's log:\n%s", logs.String())
		}
	})
	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	select {
	case <-mgr.Elected():
	case <-waitCtx.Done():
		t.Fatalf("the manager was not elected leader within a minute\n%s", logs.String())
	}

	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	var lease coordinationv1.Lease
	if err := direct.Get(waitCtx, types.NamespacedName{Namespace: "kube-system", Name: "apigen-e2e-database"}, &lease); err != nil {
		t.Fatalf("leader election's Lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("leader election's Lease has no holder: %+v", lease.Spec)
	}

	db := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "operated", Namespace: "default"}, Spec: dbv1.DatabaseSpec{Engine: dbv1.EnginePostgres}}
	if err := direct.Create(waitCtx, db, client.FieldOwner("e2e-creator")); err != nil {
		t.Fatalf("create: %v", err)
	}
	key := client.ObjectKeyFromObject(db)
	var got dbv1.Database
	waitUntil(t, 30*time.Second, "the reconciler's label and status", func() bool {
		if err := direct.Get(waitCtx, key, &got); err != nil {
			t.Fatalf("get: %v", err)
		}
		return got.Labels["reconciled"] == "true" && got.Status.Phase == dbv1.DatabaseReady
	})
	if got.Status.ObservedGeneration != got.Generation || got.Spec.Engine != dbv1.EnginePostgres {
		t.Errorf("after reconcile: generation %d, status %+v, spec %+v; want observedGeneration = generation and the creator's spec kept",
			got.Generation, got.Status, got.Spec)
	}
	wantEntries := []string{reconcilerManager + "/Apply/", reconcilerManager + "/Apply/status", "e2e-creator/Update/"}
	if entries := managedEntries(got.ManagedFields); !slices.Equal(entries, wantEntries) {
		t.Errorf("managedFields entries (manager/operation/subresource) = %q, want %q", entries, wantEntries)
	}
	for _, e := range got.ManagedFields {
		if e.Manager == reconcilerManager && e.Subresource == "status" && !strings.Contains(string(e.FieldsV1.Raw), `"f:phase"`) {
			t.Errorf("the reconciler's status entry does not own status.phase: %s", e.FieldsV1.Raw)
		}
	}

	// An update from a copy older than the reconciler's writes is refused, as kube-apiserver
	// refuses it, and changes nothing.
	stale := db.DeepCopy()
	stale.Spec.Version = "16"
	if err := direct.Update(waitCtx, stale); !apierrors.IsConflict(err) {
		t.Errorf("update from a stale resourceVersion = %v, want a Conflict", err)
	}

	// The manager's cache follows the delete; the reconciler sees it gone.
	if err := direct.Delete(waitCtx, db); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitUntil(t, 30*time.Second, "the Database to leave the manager's cache", func() bool {
		err := mgr.GetCache().Get(waitCtx, key, &dbv1.Database{})
		return apierrors.IsNotFound(err)
	})
	waitUntil(t, 30*time.Second, "the reconciler to see the Database gone", func() bool {
		return reconciled.isGone(key.String())
	})
}

// managedEntries returns each entry's manager/operation/subresource, sorted.
func managedEntries(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprintf("%s/%s/%s", e.Manager, e.Operation, e.Subresource))
	}
	slices.Sort(out)
	return out
}

// databaseReconciler labels each Database reconciled=true and sets its status to Ready at
// its generation, both with server-side apply as reconcilerManager; it reads through the
// manager's cache.
type databaseReconciler struct {
	client  client.Client
	counter *reconcileCounter
}

// Reconcile implements reconcile.Reconciler.
func (r *databaseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var db dbv1.Database
	if err := r.client.Get(ctx, req.NamespacedName, &db); err != nil {
		if apierrors.IsNotFound(err) {
			r.counter.markGone(req.String())
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	label := dbv1ac.Database(db.Name, db.Namespace).WithLabels(map[string]string{"reconciled": "true"})
	if err := r.client.Apply(ctx, label, client.FieldOwner(reconcilerManager), client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply the label: %w", err)
	}
	status := dbv1ac.Database(db.Name, db.Namespace).WithStatus(dbv1ac.DatabaseStatus().
		WithPhase(dbv1.DatabaseReady).WithReadyReplicas(1).WithObservedGeneration(db.Generation))
	if err := r.client.Status().Apply(ctx, status, client.FieldOwner(reconcilerManager), client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply the status: %w", err)
	}
	return ctrl.Result{}, nil
}

// reconcileCounter records the keys the reconciler found deleted.
type reconcileCounter struct {
	mu   sync.Mutex
	gone map[string]bool
}

func (c *reconcileCounter) markGone(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone == nil {
		c.gone = map[string]bool{}
	}
	c.gone[key] = true
}

func (c *reconcileCounter) isGone(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone[key]
}

// syncLog collects controller-runtime's log lines for a failing test's output.
type syncLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *syncLog) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 1})
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

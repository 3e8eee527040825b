package e2e

import (
	"context"
	"fmt"
	"maps"
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
	applymetav1 "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	dbv1ac "github.com/apigen-dev/apigen/example-api/pkg/generated/applyconfiguration/db/v1"
)

// reconcilerManager is the field manager of the controller-runtime reconciler's applies.
const reconcilerManager = "cr-reconciler"

// TestControllerRuntimeManager runs a controller-runtime manager against example-apiserver, as
// a kubebuilder operator would: leader election on a coordination.k8s.io Lease, a RESTMapper
// from (aggregated) discovery, and a Database controller that owns Backups. Its reconciler
// reads through the manager's informer cache; it adds a finalizer with an Update, then
// writes with server-side apply (client.Apply of the generated applyconfigurations): a
// label, an owned Backup (controller ownerReference) and the status subresource. A Database
// created through a second, uncached client is reconciled; its managedFields hold the
// creator's and the reconciler's Update entries and the reconciler's two Apply entries (one
// for status), as kube-apiserver records them. An Update from a stale copy is a Conflict.
// Deleting the Database leaves it terminating until the reconciler removes its finalizer;
// then it leaves the manager's cache and the garbage collector deletes its Backup.
func TestControllerRuntimeManager(t *testing.T) {
	t.Parallel()
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
	seen := &reconcileLog{}
	err = ctrl.NewControllerManagedBy(mgr).For(&dbv1.Database{}).Owns(&dbv1.Backup{}).
		Complete(&databaseReconciler{client: mgr.GetClient(), log: seen})
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
	waitCtx, waitCancel := context.WithTimeout(ctx, 2*time.Minute)
	defer waitCancel()
	select {
	case <-mgr.Elected():
	case <-waitCtx.Done():
		t.Fatalf("the manager was not elected leader in time\n%s", logs.String())
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
	// Leader election reports "<identity> became leader" as an Event on the Lease, as
	// against kube-apiserver; without Events its POST is a 404.
	kube := kubernetes.NewForConfigOrDie(cfg)
	waitUntil(t, 30*time.Second, "leader election's LeaderElection Event on its Lease", func() bool {
		list, err := kube.CoreV1().Events("kube-system").List(waitCtx, metav1.ListOptions{
			FieldSelector: "reason=LeaderElection,involvedObject.kind=Lease,involvedObject.name=apigen-e2e-database"})
		if err != nil {
			t.Fatalf("list events: %v", err)
		}
		for _, ev := range list.Items {
			if strings.HasSuffix(ev.Message, " became leader") && strings.HasPrefix(ev.Message, *lease.Spec.HolderIdentity) {
				return true
			}
		}
		return false
	})

	db := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "operated", Namespace: "default"}, Spec: dbv1.DatabaseSpec{Engine: dbv1.EnginePostgres}}
	if err := direct.Create(waitCtx, db, client.FieldOwner("e2e-creator")); err != nil {
		t.Fatalf("create: %v", err)
	}
	key := client.ObjectKeyFromObject(db)
	backupKey := types.NamespacedName{Namespace: db.Namespace, Name: db.Name + "-nightly"}
	var got dbv1.Database
	waitUntil(t, 30*time.Second, "the reconciler's finalizer, label and status", func() bool {
		if err := direct.Get(waitCtx, key, &got); err != nil {
			t.Fatalf("get: %v", err)
		}
		return controllerutil.ContainsFinalizer(&got, cleanupFinalizer) && got.Labels["reconciled"] == "true" &&
			got.Status.Phase == dbv1.DatabaseReady
	})
	if got.Status.ObservedGeneration != got.Generation || got.Spec.Engine != dbv1.EnginePostgres {
		t.Errorf("after reconcile: generation %d, status %+v, spec %+v; want observedGeneration = generation and the creator's spec kept",
			got.Generation, got.Status, got.Spec)
	}
	sets := managedSets(t, got.ManagedFields)
	wantEntries := []string{reconcilerManager + "/Apply/", reconcilerManager + "/Apply/status", reconcilerManager + "/Update/", "e2e-creator/Update/"}
	if entries := slices.Sorted(maps.Keys(sets)); !slices.Equal(entries, wantEntries) {
		t.Errorf("managedFields entries (manager/operation/subresource) = %q, want %q", entries, wantEntries)
	}
	if status, _ := sets[reconcilerManager+"/Apply/status"].(map[string]any)["f:status"].(map[string]any); status["f:phase"] == nil {
		t.Errorf("the reconciler's status entry does not own status.phase: %v", sets[reconcilerManager+"/Apply/status"])
	}
	var backup dbv1.Backup
	if err := direct.Get(waitCtx, backupKey, &backup); err != nil {
		t.Fatalf("the reconciler's Backup: %v", err)
	}
	if owner := metav1.GetControllerOf(&backup); owner == nil || owner.UID != got.UID || owner.Kind != "Database" {
		t.Errorf("the Backup's controller = %+v, want the Database (uid %s)", owner, got.UID)
	}

	// An update from a copy older than the reconciler's writes is refused, as kube-apiserver
	// refuses it, and changes nothing.
	stale := db.DeepCopy()
	stale.Spec.Version = "16"
	if err := direct.Update(waitCtx, stale); !apierrors.IsConflict(err) {
		t.Errorf("update from a stale resourceVersion = %v, want a Conflict", err)
	}

	// Deleting waits for the reconciler's finalizer; then the Database leaves the manager's
	// cache and the garbage collector deletes the Backup it owned.
	if err := direct.Delete(waitCtx, db); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitUntil(t, 30*time.Second, "the reconciler to finalize the Database", func() bool { return seen.has("finalized " + key.String()) })
	waitUntil(t, 30*time.Second, "the Database to leave the manager's cache", func() bool {
		return apierrors.IsNotFound(mgr.GetCache().Get(waitCtx, key, &dbv1.Database{}))
	})
	waitUntil(t, 30*time.Second, "the garbage collector to delete the Backup", func() bool {
		return apierrors.IsNotFound(direct.Get(waitCtx, backupKey, &dbv1.Backup{}))
	})
}

// cleanupFinalizer is the finalizer the reconciler puts on each Database.
const cleanupFinalizer = "db.example.com/cleanup"

// databaseReconciler reconciles Databases as a kubebuilder controller: it reads through the
// manager's cache, adds cleanupFinalizer with an Update, then applies (as reconcilerManager)
// the label reconciled=true, a Backup "<name>-nightly" the Database controls, and status
// Ready at the Database's generation. A terminating Database has its finalizer removed.
type databaseReconciler struct {
	client client.Client
	log    *reconcileLog
}

// Reconcile implements reconcile.Reconciler.
func (r *databaseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var db dbv1.Database
	if err := r.client.Get(ctx, req.NamespacedName, &db); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	owner := client.FieldOwner(reconcilerManager)
	if !db.DeletionTimestamp.IsZero() {
		if controllerutil.RemoveFinalizer(&db, cleanupFinalizer) {
			if err := r.client.Update(ctx, &db, owner); err != nil {
				return ctrl.Result{}, err
			}
			r.log.add("finalized " + req.String())
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(&db, cleanupFinalizer) {
		return ctrl.Result{}, r.client.Update(ctx, &db, owner) // its event reconciles again
	}
	label := dbv1ac.Database(db.Name, db.Namespace).WithLabels(map[string]string{"reconciled": "true"})
	if err := r.client.Apply(ctx, label, owner, client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply the label: %w", err)
	}
	backup := dbv1ac.Backup(db.Name+"-nightly", db.Namespace).
		WithOwnerReferences(applymetav1.OwnerReference().WithAPIVersion(dbv1.SchemeGroupVersion.String()).WithKind("Database").
			WithName(db.Name).WithUID(db.UID).WithController(true).WithBlockOwnerDeletion(true)).
		WithSpec(dbv1ac.BackupSpec().WithDatabaseName(db.Name).WithSchedule("0 3 * * *"))
	if err := r.client.Apply(ctx, backup, owner, client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply the backup: %w", err)
	}
	status := dbv1ac.Database(db.Name, db.Namespace).WithStatus(dbv1ac.DatabaseStatus().
		WithPhase(dbv1.DatabaseReady).WithReadyReplicas(1).WithObservedGeneration(db.Generation))
	if err := r.client.Status().Apply(ctx, status, owner, client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply the status: %w", err)
	}
	return ctrl.Result{}, nil
}

// reconcileLog records what the reconciler did, for the test to wait on.
type reconcileLog struct {
	mu   sync.Mutex
	done map[string]bool
}

func (l *reconcileLog) add(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done == nil {
		l.done = map[string]bool{}
	}
	l.done[what] = true
}

func (l *reconcileLog) has(what string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done[what]
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

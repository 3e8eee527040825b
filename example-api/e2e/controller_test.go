package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/informers/externalversions"
	"github.com/apigen-dev/apigen/internal/freeport"
	"github.com/apigen-dev/apigen/internal/testinputs"
)

// controllerPackage is the example controller's import path.
const controllerPackage = "github.com/apigen-dev/apigen/example-api/cmd/database-controller"

// phaseWithin is how soon after a Database is created the controller must have set its phase.
const phaseWithin = 2 * time.Second

// TestDatabaseController runs example-apiserver and the example controller
// (example-api/cmd/database-controller, built on the generated typed informer, lister and
// clientset) as processes. A Database created through the generated clientset gets
// status.phase Ready within 2 s, and the controller's Ready Event. The server is then stopped and started again on the same
// port and data directory; once the controller has caught up (a first Database created after
// the restart becomes Ready), a second new Database again gets its phase within 2 s.
func TestDatabaseController(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	dataDir, port := t.TempDir(), freeport.Port(t)
	proc := startProcessAt(t, dataDir, port)
	client := versioned.NewForConfigOrDie(unthrottledConfig(proc.Config))
	ctrl := startController(t, proc.Kubeconfig)
	ctrl.waitFor(t, "synced", 30*time.Second)

	ctx := context.Background()
	createAndWaitReady(ctx, t, client, "before-restart", phaseWithin, ctrl)
	// The controller records a Ready Event (client-go's tools/record) on the Database.
	kube := kubernetes.NewForConfigOrDie(unthrottledConfig(proc.Config))
	waitUntil(t, 20*time.Second, "the controller's Ready Event", func() bool {
		list, err := kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=before-restart,reason=Ready,source=database-controller"})
		return err == nil && len(list.Items) == 1 && strings.HasPrefix(list.Items[0].Message, "Database is Ready")
	})

	if err := proc.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	proc = startProcessAt(t, dataDir, port)
	client = versioned.NewForConfigOrDie(unthrottledConfig(proc.Config))
	createAndWaitReady(ctx, t, client, "probe-after-restart", time.Minute, ctrl)
	createAndWaitReady(ctx, t, client, "after-restart", phaseWithin, ctrl)
	if db, err := client.DbV1().Databases("default").Get(ctx, "before-restart", metav1.GetOptions{}); err != nil || db.Status.Phase != dbv1.DatabaseReady {
		t.Errorf("the Database made Ready before the restart is %+v after it (%v)", db, err)
	}
}

// TestTypedInformerWatchList syncs a generated typed informer against the server: client-go's
// reflector takes the initial state as a streaming list (watch=true&sendInitialEvents=true),
// the informer's lister then serves every Database, by namespace and name, and a Database
// created afterwards reaches the lister through the watch.
func TestTypedInformerWatchList(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx := context.Background()
	client := versioned.NewForConfigOrDie(unthrottledConfig(s.config))
	for _, ns := range []string{"default", "kube-public"} {
		for i := range 3 {
			db := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("db-%d", i), Namespace: ns},
				Spec: dbv1.DatabaseSpec{Engine: dbv1.EnginePostgres}}
			if _, err := client.DbV1().Databases(ns).Create(ctx, db, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	gate := &watchGate{}
	cfg := unthrottledConfig(s.config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { gate.next = rt; return gate }
	factory := externalversions.NewSharedInformerFactory(versioned.NewForConfigOrDie(cfg), 0)
	databases := factory.Db().V1().Databases()
	informer, lister := databases.TypedInformer(), databases.Lister()
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		t.Fatalf("the typed informer did not sync within 30s; its requests: %v", gate.requests())
	}
	if reqs := gate.requests(); len(reqs) == 0 || !strings.Contains(reqs[0], "watch=true") || !strings.Contains(reqs[0], "sendInitialEvents=true") {
		t.Errorf("the typed informer's first request = %v, want a streaming list (watch=true&sendInitialEvents=true)", reqs)
	}
	all, err := lister.List(labels.Everything())
	if err != nil || len(all) != 6 {
		t.Errorf("lister.List = %d databases (%v), want 6", len(all), err)
	}
	inNS, err := lister.Databases("kube-public").List(labels.Everything())
	if err != nil || len(inNS) != 3 {
		t.Errorf("lister.Databases(kube-public).List = %d databases (%v), want 3", len(inNS), err)
	}
	if db, err := lister.Databases("default").Get("db-1"); err != nil || db.Spec.Engine != dbv1.EnginePostgres {
		t.Errorf("lister Get(default/db-1) = %+v, %v", db, err)
	}
	if _, err := lister.Databases("default").Get("absent"); !apierrors.IsNotFound(err) {
		t.Errorf("lister Get(default/absent) error = %v, want NotFound", err)
	}
	late := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: "default"}, Spec: dbv1.DatabaseSpec{Engine: dbv1.EngineMySQL}}
	if _, err := client.DbV1().Databases("default").Create(ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 15*time.Second, "the lister to see default/late", func() bool {
		_, err := lister.Databases("default").Get("late")
		return err == nil
	})
}

// createAndWaitReady creates a Database called name in default and waits until the
// controller has set its phase to Ready, failing when that takes longer than within.
func createAndWaitReady(ctx context.Context, t *testing.T, client versioned.Interface, name string, within time.Duration, ctrl *controllerProc) {
	t.Helper()
	db := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: dbv1.DatabaseSpec{Engine: dbv1.EnginePostgres}}
	start := time.Now()
	created, err := client.DbV1().Databases("default").Create(ctx, db, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	for {
		got, err := client.DbV1().Databases("default").Get(ctx, name, metav1.GetOptions{})
		if err == nil && got.Status.Phase == dbv1.DatabaseReady {
			if got.Status.ObservedGeneration != created.Generation || got.Status.ReadyReplicas != 1 {
				t.Errorf("%s status = %+v, want observedGeneration %d and 1 ready replica", name, got.Status, created.Generation)
			}
			t.Logf("%s: phase Ready %s after create", name, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > within {
			t.Fatalf("%s: phase not set within %s of create (last: %+v, %v)\ncontroller output:\n%s", name, within, got, err, ctrl.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startProcessAt starts example-apiserver on port with dataDir, stopping it in t.Cleanup, and
// returns its process (a test may stop it and start another on the same port and data).
func startProcessAt(t *testing.T, dataDir string, port int) *serverproc.Process {
	t.Helper()
	bin := serverBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), serverStartWithin)
	defer cancel()
	proc, err := serverproc.Start(ctx, bin, dataDir, fmt.Sprintf("--secure-port=%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := proc.Stop(20 * time.Second); err != nil {
			t.Error(err)
		}
	})
	return proc
}

// unthrottledConfig copies cfg without client-go's client-side rate limit.
func unthrottledConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS = -1
	return c
}

// waitUntil polls cond every 10 ms until it holds, failing after within.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var (
	controllerOnce sync.Once
	controllerBin  string
	controllerErr  error
)

// controllerBinary builds the example controller once per test binary run.
func controllerBinary(t *testing.T) string {
	t.Helper()
	testinputs.Declare(t, controllerPackage)
	controllerOnce.Do(func() {
		dir, err := binDir()
		if err != nil {
			controllerErr = err
			return
		}
		controllerBin = filepath.Join(dir, "database-controller")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", controllerBin, controllerPackage).CombinedOutput(); err != nil {
			controllerErr = fmt.Errorf("cannot build database-controller: %w\n%s", err, out)
		}
	})
	if controllerErr != nil {
		t.Fatal(controllerErr)
	}
	return controllerBin
}

// controllerProc is a running database-controller and the lines it printed.
type controllerProc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

// startController starts the controller with kubeconfig; t.Cleanup stops it with SIGTERM
// and fails the test if it does not exit 0 within 20 s.
func startController(t *testing.T, kubeconfig string) *controllerProc {
	t.Helper()
	c := &controllerProc{cmd: exec.Command(controllerBinary(t), "--kubeconfig", kubeconfig), done: make(chan struct{})}
	pipe, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stderr = c.cmd.Stdout
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.mu.Lock()
			c.lines = append(c.lines, sc.Text())
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(20 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
			t.Errorf("database-controller did not stop within 20s of SIGTERM")
		}
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("database-controller did not exit cleanly: %v\n%s", err, c.output())
		}
	})
	return c
}

// output returns what the controller printed so far.
func (c *controllerProc) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// waitFor waits until the controller printed a line containing s, failing after within.
func (c *controllerProc) waitFor(t *testing.T, s string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(c.output(), s) {
		select {
		case <-c.done:
			t.Fatalf("database-controller exited before printing %q:\n%s", s, c.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("database-controller did not print %q within %s:\n%s", s, within, c.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

package e2e

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
	"github.com/apigen-dev/apigen/internal/freeport"
	"github.com/apigen-dev/apigen/internal/testinputs"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// kubectlPath is the kubectl the end-to-end tests drive (v1.32 on the CI machine).
const kubectlPath = "/usr/bin/kubectl"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	// binDir holds the binaries the tests build once per run (the server's, the
	// controller's); TestMain removes it.
	binDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "apigen-e2e-bin-") })
)

// parallel is how many parallel tests run at once unless -test.parallel says otherwise: they
// wait on server processes, etcd and kubectl far more than they compute, so go test's default
// (GOMAXPROCS, 2 on the CI machine) would leave the machine idle; their assertions allow for
// a loaded machine, and those that measure time or memory do not run in parallel.
const parallel = 4

// TestMain runs the tests, then removes the binaries they built.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < parallel {
		if err := flag.Set("test.parallel", strconv.Itoa(parallel)); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	if dir, err := binDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// serverBinary builds example-apiserver once per test binary run.
func serverBinary(t *testing.T) string {
	t.Helper()
	testinputs.Declare(t, serverproc.Package)
	buildOnce.Do(func() {
		dir, err := binDir()
		if err != nil {
			buildErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		binPath, buildErr = serverproc.Build(ctx, dir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// apiServer is a running example-apiserver process and clients for it.
type apiServer struct {
	proc       *serverproc.Process
	kubeconfig string
	config     *rest.Config
	dynamic    *dynamic.DynamicClient
}

// serverStartWithin bounds a server's start (its embedded etcd, bootstrap, readiness): seconds
// on an idle machine, over a minute seen while the machine ran four times the work of its
// cores. A server that cannot start exits, which ends the wait at once.
const serverStartWithin = 3 * time.Minute

// startServer starts example-apiserver on a free loopback port with its own data dir and
// embedded etcd, waits until /readyz answers 200, and stops it (SIGTERM, then SIGKILL) in
// t.Cleanup, failing the test if it does not exit 0. flags are added to the command line, e.g.
// "--etcd-servers=http://127.0.0.1:2379" to use an etcd the test runs or
// "--etcd-compaction-interval=1s".
func startServer(t *testing.T, flags ...string) *apiServer {
	t.Helper()
	return startServerAt(t, t.TempDir(), flags...)
}

// startServerAt is startServer on the data directory dataDir, which may hold an earlier
// server's data (a restart: stop the earlier one with proc.Stop first).
func startServerAt(t *testing.T, dataDir string, flags ...string) *apiServer {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Fatalf("kubectl is required at %s: %v", kubectlPath, err)
	}
	// The binary first: its build (once per run, minutes on a loaded machine) is not part of
	// the time the server has to start.
	bin := serverBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), serverStartWithin)
	defer cancel()
	proc, err := serverproc.Start(ctx, bin, dataDir, flags...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := proc.Stop(20 * time.Second); err != nil {
			t.Error(err)
		}
	})
	dyn, err := dynamic.NewForConfig(proc.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &apiServer{proc: proc, kubeconfig: proc.Kubeconfig, config: proc.Config, dynamic: dyn}
}

// unthrottled returns a dynamic client for the server without client-go's client-side rate
// limit (5 requests/s by default), for tests that load the server.
func (s *apiServer) unthrottled(t *testing.T) *dynamic.DynamicClient {
	t.Helper()
	cfg := rest.CopyConfig(s.config)
	cfg.QPS = -1
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// kubectl runs kubectl against the server and returns its combined output.
func (s *apiServer) kubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return s.kubectlEnv(t, nil, args...)
}

// kubectlEnv is kubectl with env (KEY=value) added to the test process's environment, as
// KUBE_EDITOR for kubectl edit.
func (s *apiServer) kubectlEnv(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustKubectl runs kubectl and fails the test if it exits non-zero.
func (s *apiServer) mustKubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := s.kubectl(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s\nserver output:\n%s", strings.Join(args, " "), err, out, s.proc.Output())
	}
	t.Logf("kubectl %s\n%s", strings.Join(args, " "), out)
	return out
}

// watchLines starts `kubectl args...` (a -w command) and returns a channel of its output lines;
// the process is killed in t.Cleanup.
func (s *apiServer) watchLines(t *testing.T, args ...string) <-chan string {
	t.Helper()
	cmd := exec.Command(kubectlPath, append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return lines
}

// testEtcd is a single-member etcd the test runs in its own process, in t.TempDir(), on
// loopback ports chosen once, so that Stop then Start brings the same member back at the same
// URL, as an etcd outage looks to a server given --etcd-servers=URL.
type testEtcd struct {
	t         *testing.T
	dir       string
	clientURL string
	peerURL   string

	mu     sync.Mutex
	member *embedded.Server
}

// startEtcd starts a testEtcd and stops it in t.Cleanup. Ports found free can be taken by
// another test process before the member binds them: a first start that finds its port in
// use tries other ports, up to three times.
func startEtcd(t *testing.T) *testEtcd {
	t.Helper()
	for attempt := 1; ; attempt++ {
		e := &testEtcd{t: t, dir: t.TempDir(), clientURL: "http://" + freeport.Addr(t), peerURL: "http://" + freeport.Addr(t)}
		err := e.start()
		if errors.Is(err, syscall.EADDRINUSE) && attempt < 3 {
			continue
		}
		if err != nil {
			t.Fatalf("cannot start etcd: %v", err)
		}
		t.Cleanup(e.Stop)
		return e
	}
}

// URL is the member's client URL, e.g. "http://127.0.0.1:41234".
func (e *testEtcd) URL() string { return e.clientURL }

// Start starts the member (again) on its data dir and URLs and waits until it serves; it
// fails the test if it cannot. Starting a running member does nothing.
func (e *testEtcd) Start() {
	e.t.Helper()
	if err := e.start(); err != nil {
		e.t.Fatalf("cannot start etcd: %v", err)
	}
}

// start is Start returning the error.
func (e *testEtcd) start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.member != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := embedded.Start(ctx, embedded.Config{
		DataDir:   e.dir,
		ClientURL: e.clientURL,
		PeerURL:   e.peerURL,
		LogLevel:  "fatal", // etcd logs harmless errors whenever a member stops
	})
	if err != nil {
		return err
	}
	e.member = m
	return nil
}

// Stop stops the member and waits until it has stopped; its data stays. Stopping a stopped
// member does nothing.
func (e *testEtcd) Stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.member != nil {
		_ = e.member.Close()
		e.member = nil
	}
}

// Client returns a clientv3 client of the member, closed in t.Cleanup.
func (e *testEtcd) Client() *clientv3.Client {
	e.t.Helper()
	return etcdClient(e.t, e.clientURL)
}

// etcdClient returns a clientv3 client of the etcd at url, closed in t.Cleanup.
func etcdClient(t *testing.T, url string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("cannot connect to etcd at %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// etcdGet reads key (with opts, e.g. clientv3.WithPrefix()) from the etcd at url, as stored:
// the raw bytes the server wrote.
func etcdGet(t *testing.T, url, key string, opts ...clientv3.OpOption) *clientv3.GetResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := etcdClient(t, url).Get(ctx, key, opts...)
	if err != nil {
		t.Fatalf("etcd get %s: %v", key, err)
	}
	return resp
}

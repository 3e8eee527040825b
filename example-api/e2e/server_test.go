package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// kubectlPath is the kubectl the end-to-end tests drive (v1.32 on the CI machine).
const kubectlPath = "/usr/bin/kubectl"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// serverBinary builds example-apiserver once per test binary run.
func serverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "apigen-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "example-apiserver")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, "./example-api/cmd/example-apiserver")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("cannot build example-apiserver: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// apiServer is a running example-apiserver process.
type apiServer struct {
	kubeconfig string
	config     *rest.Config
	dynamic    *dynamic.DynamicClient
	output     *lockedBuffer
	// exited is closed when the process has exited.
	exited chan struct{}
}

// lockedBuffer collects a process's output for failure messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startServer starts example-apiserver on a free loopback port with its own data dir and
// embedded etcd, waits until /readyz answers 200, and stops it (SIGTERM, then SIGKILL) in
// t.Cleanup. flags are added to the command line, e.g. "--etcd-servers=http://127.0.0.1:2379"
// to use an etcd the test runs or "--etcd-compaction-interval=1s".
func startServer(t *testing.T, flags ...string) *apiServer {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Fatalf("kubectl is required at %s: %v", kubectlPath, err)
	}
	bin := serverBinary(t)
	dataDir := t.TempDir()
	out := &lockedBuffer{}
	cmd := exec.Command(bin, append([]string{"--data-dir", dataDir, "--secure-port", "0"}, flags...)...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &apiServer{kubeconfig: filepath.Join(dataDir, "kubeconfig"), output: out, exited: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("example-apiserver did not exit cleanly on SIGTERM: %v\n%s", err, out)
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("example-apiserver did not stop within 20s of SIGTERM\n%s", out)
		}
	})

	deadline := time.Now().Add(60 * time.Second)
	for {
		if err := s.ready(); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("example-apiserver not ready after 60s: %v\n%s", err, out)
		}
		select {
		case err := <-done:
			t.Fatalf("example-apiserver exited early: %v\n%s", err, out)
		case <-time.After(100 * time.Millisecond):
		}
	}
	dyn, err := dynamic.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	s.dynamic = dyn
	return s
}

// ready loads the kubeconfig the server wrote and checks /readyz.
func (s *apiServer) ready() error {
	if s.config == nil {
		cfg, err := clientcmd.BuildConfigFromFlags("", s.kubeconfig)
		if err != nil {
			return err
		}
		s.config = cfg
	}
	client, err := rest.HTTPClientFor(s.config)
	if err != nil {
		return err
	}
	resp, err := client.Get(strings.TrimSuffix(s.config.Host, "/") + "/readyz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %d %s", resp.StatusCode, body)
	}
	return nil
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustKubectl runs kubectl and fails the test if it exits non-zero.
func (s *apiServer) mustKubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := s.kubectl(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s\nserver output:\n%s", strings.Join(args, " "), err, out, s.output)
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

// startEtcd starts a testEtcd and stops it in t.Cleanup.
func startEtcd(t *testing.T) *testEtcd {
	t.Helper()
	e := &testEtcd{t: t, dir: t.TempDir(), clientURL: "http://" + freeAddr(t), peerURL: "http://" + freeAddr(t)}
	e.Start()
	t.Cleanup(e.Stop)
	return e
}

// URL is the member's client URL, e.g. "http://127.0.0.1:41234".
func (e *testEtcd) URL() string { return e.clientURL }

// Start starts the member (again) on its data dir and URLs and waits until it serves; it
// fails the test if it cannot. Starting a running member does nothing.
func (e *testEtcd) Start() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.member != nil {
		return
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
		e.t.Fatalf("cannot start etcd: %v", err)
	}
	e.member = m
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
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.clientURL}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		e.t.Fatalf("cannot connect to etcd at %s: %v", e.clientURL, err)
	}
	e.t.Cleanup(func() { _ = c.Close() })
	return c
}

// freeAddr returns a 127.0.0.1 host:port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("cannot find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

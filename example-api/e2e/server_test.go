package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
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

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
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
// t.Cleanup.
func startServer(t *testing.T) *apiServer {
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
	cmd := exec.Command(bin, "--data-dir", dataDir, "--secure-port", "0")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
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

	s := &apiServer{kubeconfig: filepath.Join(dataDir, "kubeconfig"), output: out}
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

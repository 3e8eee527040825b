package scaffold_test

import (
	"bufio"
	"bytes"
	"context"
	"github.com/apigen-dev/apigen/internal/testinputs"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// kubectlPath is the kubectl the end-to-end tests drive (v1.32 on the CI machine).
const kubectlPath = "/usr/bin/kubectl"

// checkout returns this apigen checkout's root directory.
func checkout(tb testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("no caller information")
	}
	return filepath.Dir(filepath.Dir(file))
}

// goEnv is the environment of every go, make and apigen command the tests run: the
// caller's, with GOFLAGS=-mod=mod (the environment's GOPROXY and GOMODCACHE are kept, so a
// warm module cache is enough).
func goEnv() []string {
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	return append(os.Environ(), "GOFLAGS="+strings.Join(append(flags, "-mod=mod"), " "))
}

// generatedRepoDeps are the packages of this checkout that a scaffolded repository is built
// with: apigen, which generates its code, and the runtime, which that code links against.
var generatedRepoDeps = []string{"./cmd/apigen", "./runtime/..."}

// buildApigen builds this checkout's cmd/apigen into dir and returns the binary's path.
func buildApigen(tb testing.TB, dir string) string {
	testinputs.Declare(tb, generatedRepoDeps...)
	bin := filepath.Join(dir, "apigen")
	runIn(tb, checkout(tb), 5*time.Minute, "go", "build", "-o", bin, "./cmd/apigen")
	return bin
}

// runIn runs name with args in dir (goEnv), failing tb on a non-zero exit or after timeout;
// it returns the combined output.
func runIn(tb testing.TB, dir string, timeout time.Duration, name string, args ...string) string {
	tb.Helper()
	out, err := tryIn(dir, timeout, name, args...)
	if err != nil {
		tb.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// tryIn is runIn returning the error instead of failing.
func tryIn(dir string, timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// server is a running API server process.
type server struct {
	cmd        *exec.Cmd
	kubeconfig string
	// ready is the readiness line the server printed (where it serves, its etcd, its kubeconfig).
	ready  string
	exited chan error
}

// startServer starts the server binary bin on a free loopback port with dataDir, waits for
// its readiness line (which names the kubeconfig it wrote) and stops it in tb.Cleanup
// (SIGTERM, then SIGKILL after 20s), failing tb if it does not exit 0.
func startServer(tb testing.TB, bin, dataDir string) *server {
	tb.Helper()
	cmd := exec.Command(bin, "--secure-port=0", "--data-dir="+dataDir, "--log-level=warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &server{cmd: cmd, exited: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, _, ok := strings.Cut(sc.Text(), "KUBECONFIG="); ok {
				ready <- sc.Text()
			}
		}
		io.Copy(io.Discard, stdout)
		s.exited <- cmd.Wait()
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-s.exited:
			if err != nil {
				tb.Errorf("server %s: %v\n%s", filepath.Base(bin), err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			tb.Errorf("server %s did not stop within 20s of SIGTERM", filepath.Base(bin))
			<-s.exited
		}
	}
	tb.Cleanup(stop)
	select {
	case s.ready = <-ready:
		_, s.kubeconfig, _ = strings.Cut(s.ready, "KUBECONFIG=")
	case err := <-s.exited:
		stopped = true
		tb.Fatalf("server exited before it was ready: %v\n%s", err, stderr.String())
	case <-time.After(time.Minute):
		tb.Fatalf("server not ready within 1m\n%s", stderr.String())
	}
	return s
}

// kubectl runs kubectl with the server's kubeconfig and returns its combined output.
func (s *server) kubectl(tb testing.TB, args ...string) string {
	tb.Helper()
	return runIn(tb, filepath.Dir(s.kubeconfig), time.Minute, kubectlPath, append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
}

// stop stops the server now rather than at cleanup, so another can use its data dir.
func (s *server) stop(tb testing.TB) {
	tb.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		s.exited <- err // for the cleanup
	case <-time.After(20 * time.Second):
		tb.Fatal("server did not stop within 20s of SIGTERM")
	}
}

// snapshot returns every file under dir (relative path -> content), skipping bin/ and the
// data directories.
func snapshot(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() && (rel == "bin" || strings.HasPrefix(d.Name(), "data")) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

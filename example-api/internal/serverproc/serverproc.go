// Package serverproc builds example-apiserver and runs it as a child process for the
// end-to-end tests and the load generator: start it with its own data directory on a free
// port, wait until it is ready, stop it with SIGTERM.
package serverproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Package is example-apiserver's import path.
const Package = "github.com/apigen-dev/apigen/example-api/cmd/example-apiserver"

// Build builds example-apiserver into dir and returns the binary's path. It runs `go build`
// from the current directory, which must be inside this module.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "example-apiserver")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, Package)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build example-apiserver: %w\n%s", err, out)
	}
	return bin, nil
}

// Process is a running example-apiserver.
type Process struct {
	// Kubeconfig is the kubeconfig the server wrote (<data-dir>/kubeconfig); Config is it
	// loaded, and URL its server address ("http://127.0.0.1:41234").
	Kubeconfig string
	Config     *rest.Config
	URL        string
	// PID is the process ID, e.g. for reading /proc/<pid>/status.
	PID int

	cmd     *exec.Cmd
	output  *lockedBuffer
	exited  chan struct{}
	waitErr error
	stop    sync.Once
	stopErr error
}

// Start runs bin with --data-dir dataDir --secure-port 0 and args, and waits until it has
// written its kubeconfig and /readyz answers 200, or ctx ends, or the process exits. A
// kubeconfig left in dataDir by an earlier run (naming that run's port) is removed first. On
// failure the process is stopped and the error carries its output.
func Start(ctx context.Context, bin, dataDir string, args ...string) (*Process, error) {
	if err := os.Remove(filepath.Join(dataDir, "kubeconfig")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot remove the earlier run's kubeconfig: %w", err)
	}
	out := &lockedBuffer{}
	cmd := exec.Command(bin, append([]string{"--data-dir", dataDir, "--secure-port", "0"}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start example-apiserver: %w", err)
	}
	p := &Process{Kubeconfig: filepath.Join(dataDir, "kubeconfig"), PID: cmd.Process.Pid,
		cmd: cmd, output: out, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	for {
		err := p.Ready(ctx)
		if err == nil {
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("example-apiserver exited before it was ready: %v\n%s", p.waitErr, out)
		case <-ctx.Done():
			return nil, errors.Join(fmt.Errorf("example-apiserver not ready: %w (last: %v)\n%s", ctx.Err(), err, out), p.Stop(time.Second))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Ready loads the kubeconfig once it exists and asks /readyz once; nil means 200.
func (p *Process) Ready(ctx context.Context) error {
	if p.Config == nil {
		cfg, err := clientcmd.BuildConfigFromFlags("", p.Kubeconfig)
		if err != nil {
			return err
		}
		p.Config, p.URL = cfg, strings.TrimSuffix(cfg.Host, "/")
	}
	client, err := rest.HTTPClientFor(p.Config)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
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

// Output returns everything the process wrote to stdout and stderr so far.
func (p *Process) Output() string { return p.output.String() }

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop sends SIGTERM and waits for the process, killing it after timeout. It returns an
// error when the process does not exit 0 within timeout. Calling Stop again returns the
// first call's result.
func (p *Process) Stop(timeout time.Duration) error {
	p.stop.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			if p.waitErr != nil {
				p.stopErr = fmt.Errorf("example-apiserver did not exit cleanly on SIGTERM: %w\n%s", p.waitErr, p.output)
			}
		case <-time.After(timeout):
			_ = p.cmd.Process.Kill()
			<-p.exited
			p.stopErr = fmt.Errorf("example-apiserver did not stop within %s of SIGTERM\n%s", timeout, p.output)
		}
	})
	return p.stopErr
}

// lockedBuffer collects a process's output; safe for concurrent writes and reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSecondServerOnHeldDataDir: a second server started on the data directory a running
// server holds (`make run` twice) exits non-zero within 2 s, naming the directory and the
// holder's PID, and leaves the first one serving. (It used to wait forever, deaf to SIGTERM,
// on the embedded etcd's database file lock.)
func TestSecondServerOnHeldDataDir(t *testing.T) {
	dir := t.TempDir()
	first := startServerAt(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, serverBinary(t), "--data-dir", dir, "--secure-port", "0")
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
		t.Fatalf("second server on a held data dir: %v, want a non-zero exit\n%s", err, &out)
	}
	if took > 2*time.Second {
		t.Errorf("second server exited after %s, want within 2s", took)
	}
	for _, want := range []string{dir, "process " + strconv.Itoa(first.proc.PID)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("second server's message does not name %q:\n%s", want, &out)
		}
	}
	if err := first.proc.Ready(ctx); err != nil {
		t.Errorf("the first server after the second one's attempt: %v", err)
	}
}

// TestSIGTERMDuringStart: SIGTERM at any point of the start (data directory, embedded etcd,
// certificates, storage, caches, listening) ends the process within 10 s; none of the
// phases waits deaf to it.
func TestSIGTERMDuringStart(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	bin := serverBinary(t)
	for _, after := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			var out bytes.Buffer
			cmd := exec.Command(bin, "--data-dir", t.TempDir(), "--secure-port", "0")
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			time.Sleep(after)
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				// Before main installs its handler (the first milliseconds) SIGTERM's default
				// action ends the process; afterwards the server shuts down and exits.
				var exit *exec.ExitError
				if err != nil && !errors.As(err, &exit) {
					t.Errorf("SIGTERM %s after start: %v\n%s", after, err, &out)
				}
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				t.Fatalf("SIGTERM %s after start: still running after 10s\n%s", after, &out)
			}
		})
	}
}

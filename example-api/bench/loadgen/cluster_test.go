package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
	"github.com/apigen-dev/apigen/internal/testinputs"
)

// clusterLine matches -etcd cluster's topology line and captures the replicas' URLs and
// the members' client URLs.
var clusterLine = regexp.MustCompile(`2 server replicas \(separate processes, each with its own data directory and kubeconfig: ([^)]+)\) ` +
	`behind one client-side round robin .* on a 3-member etcd cluster in loadgen \(--etcd-servers ([^ ]+), --etcd-prefix /registry\)`)

// TestRunCluster runs the cluster topology briefly, over HTTPS (each replica reached with its
// own kubeconfig's CA and certificate) and over plain HTTP: every create on both sides must
// succeed, and when run returns, the replicas (child processes) and the etcd members must be
// gone. Leftover children are killed in cleanup.
func TestRunCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two servers on a three-member etcd; skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := buildServer(ctx, t)
	for _, transport := range []string{"https", "http"} {
		t.Run(transport, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(ctx, []string{"-server-binary", bin, "-etcd", "cluster", "-transport", transport, "-etcd-unsafe-no-fsync",
				"-clients", "2", "-ops", "create", "-duration", "200ms", "-warmup", "20ms", "-objects", "4", "-page-size", "2",
				"-watch", "", "-mem-objects", "0"}, &stdout, &stderr)
			out := stdout.String()
			if code != 0 {
				t.Fatalf("run = %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, &stderr)
			}
			m := clusterLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no topology line in the output:\n%s", out)
			}
			replicas, members := strings.Split(m[1], ", "), strings.Split(m[2], ",")
			if len(replicas) != 2 || len(members) != 3 || !strings.HasPrefix(replicas[0], transport+"://") {
				t.Errorf("replicas %q, members %q; want 2 %s URLs and 3", replicas, members, transport)
			}
			if rows := regexp.MustCompile(`(?m)^\s+create\s+2\s.*\s0/0\s`).FindAllString(out, -1); len(rows) != 1 {
				t.Errorf("%d create rows at 2 clients without errors, want 1:\n%s", len(rows), out)
			}
			for _, want := range []string{"server CPU/op = CPU time of the 2 replica processes, summed",
				"the 2 replicas' summed", "idle after start (replica 1)"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, u := range append(replicas, members...) {
				host := u[strings.Index(u, "://")+3:]
				if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
					c.Close()
					t.Errorf("%s still accepts connections after run returned", u)
				}
			}
			if left := children(t); len(left) > 0 {
				t.Errorf("child processes %v still running after run returned", left)
			}
		})
	}
}

// serverBuild is the example server the tests run, built once per test binary (buildServer)
// into dir, which TestMain removes.
var serverBuild struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildServer builds the example server, once for all the tests of the binary, and, at the
// end of the test, fails it if a child process is left running (and kills it).
func buildServer(ctx context.Context, t *testing.T) string {
	t.Helper()
	testinputs.Declare(t, serverproc.Package)
	serverBuild.once.Do(func() {
		if serverBuild.dir, serverBuild.err = os.MkdirTemp("", "loadgen-test-server-"); serverBuild.err == nil {
			serverBuild.bin, serverBuild.err = serverproc.Build(ctx, serverBuild.dir)
		}
	})
	if serverBuild.err != nil {
		t.Fatal(serverBuild.err)
	}
	t.Cleanup(func() {
		for _, pid := range children(t) {
			t.Errorf("child process %d left running; killing it", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return serverBuild.bin
}

// children returns the PIDs of this process's children that have not been reaped (Linux).
func children(t *testing.T) []int {
	t.Helper()
	files, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread is gone
		}
		for _, field := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(field); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

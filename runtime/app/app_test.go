package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"k8s.io/klog/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
)

const kubectl = "/usr/bin/kubectl"

// syncBuffer is a bytes.Buffer safe for the server's writes and the test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var readyLine = regexp.MustCompile(`^test-apiserver: serving on (https?://127\.0\.0\.1:\d+) \((?:plain HTTP, no authentication|HTTPS); etcd: (?:embedded, (.+), client URL (https?://127\.0\.0\.1:\d+) \((?:mutual TLS: etcdctl [^)]+|no authentication: any local process may read and write it)\)|https?://[^;]+)\); kubectl: export KUBECONFIG=(.+)\n$`)

// start runs the server in-process with Run on a free port with a temporary data directory
// and returns its URL and kubeconfig path once it printed its readiness line (it skips the
// test in -short mode). The server is
// stopped, and its exit code checked, when the test ends.
// The tests using it exercise the plain-HTTP mode (--plain-http); the secure default has its
// own tests (secure_test.go).
func start(t *testing.T, groups ...GroupBuilder) (url, kubeconfig string) {
	t.Helper()
	return startArgs(t, []string{"--plain-http"}, groups...)
}

// startArgs is start with extra command-line flags.
func startArgs(t testing.TB, flags []string, groups ...GroupBuilder) (url, kubeconfig string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	return startWith(t, cancel, func(args []string, stdout, stderr io.Writer) int {
		return Run(ctx, "test-apiserver", append(args, flags...), stdout, stderr, groups...)
	})
}

// startWith runs run in a goroutine as start describes; stop must make it return.
func startWith(t testing.TB, stop func(), run func(args []string, stdout, stderr io.Writer) int) (url, kubeconfig string) {
	t.Helper()
	return startAt(t, t.TempDir(), stop, run)
}

// startAt is startWith on the data directory dataDir, which may hold an earlier server's
// data (a restart).
func startAt(t testing.TB, dataDir string, stop func(), run func(args []string, stdout, stderr io.Writer) int) (url, kubeconfig string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server on an embedded etcd; skipped in -short mode")
	}
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"--secure-port=0", "--data-dir=" + dataDir}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		stop()
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("server exited %d; stderr:\n%s", c, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("server did not return after stop")
		}
	})
	// Seconds on an idle machine; the race pass on a machine running several times the work
	// of its cores needs far more. A server that fails exits, which ends the wait at once.
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.HasSuffix(stdout.String(), "\n") {
		select {
		case c := <-code:
			code <- c
			t.Fatalf("server exited %d before ready; stderr:\n%s", c, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no readiness line after 2m; stderr:\n%s", stderr.String())
		}
	}
	m := readyLine.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("readiness line %q does not match %s", stdout.String(), readyLine)
	}
	if want := filepath.Join(dataDir, "kubeconfig"); m[4] != want || m[2] != "" && m[2] != filepath.Join(dataDir, "etcd") {
		t.Errorf("readiness line names kubeconfig %q, etcd %q; want %q and %s/etcd", m[4], m[2], want, dataDir)
	}
	if _, err := os.Stat(m[4]); err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	return m[1], m[4]
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func runKubectl(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("kubectl not installed: %v", err)
	}
	cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func TestRunServesKubectl(t *testing.T) {
	url, kubeconfig := start(t, testGroup)

	if code, body := httpGet(t, url+"/readyz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/readyz: %d %q", code, body)
	}
	code, body := httpGet(t, url+"/version")
	var info version.Info
	if err := json.Unmarshal([]byte(body), &info); code != http.StatusOK || err != nil {
		t.Fatalf("/version: %d %q %v", code, body, err)
	}
	if _, err := utilversion.ParseSemantic(info.GitVersion); err != nil {
		t.Errorf("/version gitVersion %q: %v", info.GitVersion, err)
	}

	out := runKubectl(t, kubeconfig, "version", "-o", "json")
	var versions struct {
		ServerVersion *version.Info `json:"serverVersion"`
	}
	if err := json.Unmarshal([]byte(out), &versions); err != nil || versions.ServerVersion == nil || versions.ServerVersion.GitVersion != info.GitVersion {
		t.Errorf("kubectl version: %v\n%s", err, out)
	}
	out = runKubectl(t, kubeconfig, "api-resources")
	if !strings.Contains(out, "widgets") || !strings.Contains(out, "test.apigen.dev/v1") {
		t.Errorf("kubectl api-resources lacks widgets:\n%s", out)
	}
	out = runKubectl(t, kubeconfig, "get", "--raw", "/openapi/v3")
	if !strings.Contains(out, `"apis/test.apigen.dev/v1"`) {
		t.Errorf("kubectl get --raw /openapi/v3 lacks the group version:\n%s", out)
	}
}

// TestRunApplyStrict runs kubectl apply --validate=strict, which finds the kind's PATCH
// operation in /openapi/v3 by x-kubernetes-group-version-kind and, since it lists the
// fieldValidation parameter, leaves validation to the server.
func TestRunApplyStrict(t *testing.T) {
	_, kubeconfig := start(t, testGroup)
	dir := t.TempDir()
	valid := filepath.Join(dir, "valid.yaml")
	unknown := filepath.Join(dir, "unknown.yaml")
	manifest := "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: a\n  namespace: default\nspec:\n  color: red\n"
	if err := os.WriteFile(valid, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unknown, []byte(manifest+"  shade: dark\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := runKubectl(t, kubeconfig, "apply", "--validate=strict", "-f", valid); !strings.Contains(out, "widget.test.apigen.dev/a created") {
		t.Errorf("kubectl apply: %s", out)
	}
	if out := runKubectl(t, kubeconfig, "get", "widgets", "-n", "default", "-o", "name"); strings.TrimSpace(out) != "widget.test.apigen.dev/a" {
		t.Errorf("kubectl get widgets: %q", out)
	}
	cmd := exec.Command(kubectl, "--kubeconfig", kubeconfig, "apply", "--validate=strict", "-f", unknown)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "shade") {
		t.Errorf("kubectl apply --validate=strict with an unknown field: %v\n%s", err, out)
	}
}

func TestRunFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{args: []string{"--help"}, code: 0, want: "--etcd-servers"},
		{args: []string{"--help"}, code: 0, want: "--profiling"},
		{args: []string{"--plain-http", "--bind-address=0.0.0.0"}, code: 2, want: "must be a loopback IP with --plain-http"},
		{args: []string{"--token-auth-file=x", "--plain-http"}, code: 2, want: "--token-auth-file needs --plain-http=false"},
		{args: []string{"--authorization-mode=Everything"}, code: 2, want: `--authorization-mode "Everything"`},
		{args: []string{"--secure-port=-1", "--etcd-prefix=registry"}, code: 2, want: "--etcd-prefix"},
		{args: []string{"--no-such-flag"}, code: 2, want: "unknown flag"},
		{args: []string{"--request-timeout=0s"}, code: 2, want: "--request-timeout must be positive"},
		{args: []string{"--runtime-config=apiextensions.k8s.io/v1=off"}, code: 2, want: "the value must be true or false"},
		{args: []string{"--runtime-config=apiextensions.k8s.io=false"}, code: 2, want: "write <group>/<version> or api/all"},
		{args: []string{"--help"}, code: 0, want: "--watch-cache-sizes"},
		{args: []string{"--help"}, code: 0, want: "--event-ttl"},
		{args: []string{"--help"}, code: 0, want: "--encryption-provider-config"},
		{args: []string{"--encryption-provider-config=testdata/no-such-file.yaml"}, code: 2, want: "--encryption-provider-config: error reading encryption provider configuration file"},
		{args: []string{"--event-ttl=500ms"}, code: 2, want: "--event-ttl must be at least 1s"},
		{args: []string{"--lease-reuse-duration-seconds=0"}, code: 2, want: "--lease-reuse-duration-seconds must be greater than or equal to 1"},
		{args: []string{"--watch-cache-sizes=databases.db.example.com"}, code: 2, want: "write resource[.group]#size"},
		{args: []string{"--watch-cache-sizes=namespaces#-1"}, code: 2, want: "write resource[.group]#size"},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), "test-apiserver", tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("Run %v = %d, output %q; want %d containing %q", tc.args, code, stdout.String()+stderr.String(), tc.code, tc.want)
		}
	}
}

func TestRuntimeConfigEnabled(t *testing.T) {
	for _, tc := range []struct {
		config map[string]string
		gv     string
		want   bool
	}{
		{config: nil, gv: "apiextensions.k8s.io/v1", want: true},
		{config: map[string]string{"apiextensions.k8s.io/v1": "false"}, gv: "apiextensions.k8s.io/v1", want: false},
		{config: map[string]string{"apiextensions.k8s.io/v1": "false"}, gv: "apiregistration.k8s.io/v1", want: true},
		{config: map[string]string{"api/all": "false"}, gv: "apiregistration.k8s.io/v1", want: false},
		{config: map[string]string{"api/all": "false", "api/v1": "true"}, gv: "v1", want: true},
		{config: map[string]string{"api/v1": "false"}, gv: "v1", want: false},
	} {
		o := NewOptions()
		o.RuntimeConfig = tc.config
		if got := o.RuntimeConfigEnabled(tc.gv); got != tc.want {
			t.Errorf("RuntimeConfigEnabled(%q) with %v = %v, want %v", tc.gv, tc.config, got, tc.want)
		}
	}
}

// TestMainSIGTERM runs Main as a binary's main does and stops it with SIGTERM: the signal
// must end it with exit code 0 (checked by startWith's cleanup), not kill the process.
func TestMainSIGTERM(t *testing.T) {
	url, _ := startWith(t, func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Errorf("cannot send SIGTERM: %v", err)
		}
	}, func(args []string, stdout, stderr io.Writer) int {
		return Main("test-apiserver", append(args, "--plain-http"), stdout, stderr)
	})
	if code, body := httpGet(t, url+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d %q", code, body)
	}
}

// TestRunVerbosity checks kube-apiserver's -v: at 3 every request is logged (at the default
// log level, none is).
func TestRunVerbosity(t *testing.T) {
	for _, tc := range []struct {
		flags  []string
		logged bool
	}{{[]string{"-v=3"}, true}, {nil, false}} {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr syncBuffer
		code := make(chan int, 1)
		args := append([]string{"--plain-http", "--secure-port=0", "--data-dir=" + t.TempDir()}, tc.flags...)
		go func() { code <- Run(ctx, "test-apiserver", args, &stdout, &stderr, testGroup) }()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.HasSuffix(stdout.String(), "\n") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		m := readyLine.FindStringSubmatch(stdout.String())
		if m == nil {
			cancel()
			t.Fatalf("%v: no readiness line; stderr:\n%s", tc.flags, stderr.String())
		}
		httpGet(t, m[1]+"/version")
		cancel()
		if c := <-code; c != 0 {
			t.Fatalf("%v: exit %d; stderr:\n%s", tc.flags, c, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "path=/version"); got != tc.logged {
			t.Errorf("%v: request logged = %v, want %v; stderr:\n%s", tc.flags, got, tc.logged, stderr.String())
		}
	}
}

// TestRunMetrics checks that storage reports to /metrics: etcd request latencies by operation
// and resource, and the stored object count of every resource (counted at start-up). The
// garbage collector is off: its informers' watches would count as registered watchers too.
func TestRunMetrics(t *testing.T) {
	url, kubeconfig := startArgs(t, []string{"--plain-http", "--enable-garbage-collector=false"}, testGroup)
	// A fresh server counts non-resource requests as kube-apiserver does: after a /readyz,
	// /metrics has its series.
	httpGet(t, url+"/readyz")
	if _, body := httpGet(t, url+"/metrics"); !strings.Contains(body,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 1`) {
		t.Errorf("/metrics lacks the /readyz request:\n%s", body)
	}
	manifest := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata: {name: m, namespace: default}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runKubectl(t, kubeconfig, "create", "-f", manifest)
	_, body := httpGet(t, url+"/metrics")
	for _, want := range []string{
		`etcd_request_duration_seconds_count{operation="create",type="widgets.test.apigen.dev"} 1`,
		`apiserver_request_total{code="201",component="apiserver",dry_run="",group="test.apigen.dev",resource="widgets",scope="resource",subresource="",verb="POST",version="v1"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// A watch is counted while it is open.
	watchers := func() string {
		_, body := httpGet(t, url+"/metrics")
		m := regexp.MustCompile(`(?m)^apiserver_registered_watchers\{group="test\.apigen\.dev",kind="Widget",version=""\} (\d+)$`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return m[1]
	}
	waitFor := func(want string) {
		t.Helper()
		for i := 0; watchers() != want; i++ {
			if i == 200 {
				t.Fatalf("apiserver_registered_watchers for widgets = %q, want %s", watchers(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/apis/test.apigen.dev/v1/namespaces/default/widgets?watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("1")
	cancel()
	resp.Body.Close()
	waitFor("0")
	// Counted at start-up, before or after the create.
	if !regexp.MustCompile(`(?m)^apiserver_storage_objects\{resource="widgets\.test\.apigen\.dev"\} [01]$`).MatchString(body) {
		t.Error("/metrics lacks apiserver_storage_objects for widgets")
	}
	// The core group's resources are named without a trailing dot, as kube-apiserver's.
	if !regexp.MustCompile(`(?m)^apiserver_storage_objects\{resource="namespaces"\} [0-9]+$`).MatchString(body) {
		t.Error("/metrics lacks apiserver_storage_objects for namespaces")
	}
}

// TestRunStartupLogs: at start, each APIService's availability is logged once (Local ones
// at debug level: they are available on every start), and klog's lines (apimachinery,
// client-go) come out through the server's slog handler.
func TestRunStartupLogs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	args := []string{"--plain-http", "--secure-port=0", "--data-dir=" + t.TempDir(), "--log-level=debug"}
	go func() { code <- Run(ctx, "test-apiserver", args, &stdout, &stderr, testGroup) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.HasSuffix(stdout.String(), "\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if readyLine.FindStringSubmatch(stdout.String()) == nil {
		t.Fatalf("no readiness line; stderr:\n%s", stderr.String())
	}
	klog.InfoS("klog-probe", "from", "test")
	time.Sleep(time.Second) // the availability controller's first syncs
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d; stderr:\n%s", c, stderr.String())
	}
	logs := stderr.String()
	if !strings.Contains(logs, `level=INFO msg=klog-probe from=test`) {
		t.Errorf("klog's line did not come out through slog; stderr:\n%s", logs)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `msg="APIService availability changed"`) {
			continue
		}
		_, rest, _ := strings.Cut(line, "apiservice=")
		name, _, _ := strings.Cut(rest, " ")
		seen[name]++
		if strings.Contains(line, "reason=Local") && !strings.Contains(line, "level=DEBUG") {
			t.Errorf("a Local APIService's availability logged above debug: %s", line)
		}
	}
	if len(seen) == 0 {
		t.Fatalf("no availability line at debug level; stderr:\n%s", logs)
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("APIService %s: availability logged %d times, want once", name, n)
		}
	}
}

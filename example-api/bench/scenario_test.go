package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/runtime/app"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// lineWriter passes each complete line written to it to onLine; safe for concurrent use.
type lineWriter struct {
	mu     sync.Mutex
	buf    []byte
	onLine func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.onLine(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

var servingURL = regexp.MustCompile(`serving on (http://[^ ]+)`)

// startServer runs the example API server in this process on etcd, stopped in t.Cleanup,
// and returns its URL and etcd's raw operations under the server's prefix.
func startServer(t *testing.T) (string, *EtcdOps) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a server on etcd; skipped in -short mode")
	}
	client, etcd := etcdtest.Run(t)
	urls := make(chan string, 1)
	stdout := &lineWriter{onLine: func(line string) {
		if m := servingURL.FindStringSubmatch(line); m != nil {
			urls <- m[1]
		}
	}}
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- app.Run(ctx, "example-apiserver", []string{"--data-dir", t.TempDir(), "--secure-port", "0",
			"--plain-http", "--log-level", "warn", "--etcd-servers", strings.Join(etcd.Endpoints(), ",")},
			stdout, &stderr, dbinstall.NewAPIGroupInfo)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-exited; code != 0 {
			t.Errorf("server exited with code %d:\n%s", code, stderr.String())
		}
	})
	select {
	case url := <-urls:
		return url, NewEtcdOps(client, "/registry")
	case code := <-exited:
		exited <- code // for the cleanup
		t.Fatalf("server exited early with code %d:\n%s", code, stderr.String())
	case <-time.After(time.Minute):
		t.Fatal("server not serving after a minute")
	}
	return "", nil
}

// syncBuffer is a bytes.Buffer safe for concurrent use, for a server's stderr.
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

// TestScenarioEveryOperation sets up a small scenario on a real server and etcd and runs
// every operation on both sides: all must succeed, and do work. With replicas, the server is
// reached through a round robin over two endpoints (of the same server, under two names),
// and lists are unpaginated (PageSize 0: one response of all 25 objects, which the
// scenario's check requires).
func TestScenarioEveryOperation(t *testing.T) {
	for _, replicas := range []bool{false, true} {
		t.Run(fmt.Sprintf("replicas=%v", replicas), func(t *testing.T) {
			url, etcd := startServer(t)
			cfg := ScenarioConfig{ServerURL: url, Etcd: etcd, ObjectSize: 1024, Objects: 25, PageSize: 10, MaxClients: 3}
			if replicas {
				cfg.ServerURL, cfg.PageSize = "", 0
				cfg.Replicas = []Endpoint{{URL: url}, {URL: strings.Replace(url, "127.0.0.1", "localhost", 1)}}
			}
			scenarioEveryOperation(t, cfg)
		})
	}
}

// scenarioEveryOperation is TestScenarioEveryOperation on one server configuration.
func scenarioEveryOperation(t *testing.T, scfg ScenarioConfig) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := NewScenario(ctx, scfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.ObjectBytes() < 1024 {
		t.Errorf("stored objects are %d bytes, want at least the 1024 bytes sent", s.ObjectBytes())
	}
	cfg := Config{Clients: 3, Measure: 200 * time.Millisecond}
	for _, op := range Ops {
		serverOp, err := s.ServerOp(ctx, op)
		if err != nil {
			t.Fatal(err)
		}
		rawOp, err := s.RawOp(op)
		if err != nil {
			t.Fatal(err)
		}
		for side, newOp := range map[string]NewOp{"server": serverOp, "raw": rawOp} {
			sum, err := Run(ctx, cfg, newOp)
			if err != nil {
				t.Fatalf("%s %s: %v", side, op, err)
			}
			if sum.Errors > 0 || sum.Ops == 0 {
				t.Errorf("%s %s: %d ops, %d errors (first: %v); want some ops and no errors", side, op, sum.Ops, sum.Errors, sum.FirstError)
			}
		}
	}
	if _, err := s.ServerOp(ctx, "patch"); err == nil {
		t.Error("ServerOp(patch) succeeded, want an error for an unknown operation")
	}
	if _, err := s.RawOp("patch"); err == nil {
		t.Error("RawOp(patch) succeeded, want an error for an unknown operation")
	}
}

// TestRawKeysAreTheServersKeys checks that the raw side writes where the server stores: an
// object put raw under the server's key shape is served by the server.
func TestRawKeysAreTheServersKeys(t *testing.T) {
	url, etcd := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := NewScenario(ctx, ScenarioConfig{ServerURL: url, Etcd: etcd, ObjectSize: 512, Objects: 1, PageSize: 1, MaxClients: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := etcd.Put(ctx, "raw-ns", "raw-object", s.rawValue); err != nil {
		t.Fatal(err)
	}
	api := NewAPIClient(url, s.tmpl, nil)
	t.Cleanup(api.Close)
	if _, err := api.Get(ctx, "raw-ns", "raw-object"); err != nil {
		t.Errorf("the server does not serve the raw key %s: %v", etcd.Key("raw-ns", "raw-object"), err)
	}
}

// TestAPIClientErrors checks that the client reports a conflict on a stale resourceVersion
// and a missing object, with the server's status, instead of counting them as operations.
func TestAPIClientErrors(t *testing.T) {
	url, etcd := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmpl, err := NewObjectTemplate(512)
	if err != nil {
		t.Fatal(err)
	}
	api := NewAPIClient(url, tmpl, nil)
	t.Cleanup(api.Close)
	rv, err := api.Create(ctx, "default", "conflict", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Create(ctx, "default", "conflict", 0); err == nil || !strings.Contains(err.Error(), fmt.Sprint(http.StatusConflict)) {
		t.Errorf("second create: err = %v, want a 409", err)
	}
	if _, err := api.Update(ctx, "default", "conflict", rv, 1); err != nil {
		t.Fatalf("update with the current resourceVersion: %v", err)
	}
	if _, err := api.Update(ctx, "default", "conflict", rv, 2); err == nil || !strings.Contains(err.Error(), "status 409") {
		t.Errorf("update with a stale resourceVersion: err = %v, want a 409", err)
	}
	if _, err := api.Get(ctx, "default", "missing"); err == nil || !strings.Contains(err.Error(), "status 404") {
		t.Errorf("get of a missing object: err = %v, want a 404", err)
	}
	if _, err := etcd.Get(ctx, "default", "missing"); err == nil {
		t.Error("raw get of a missing key succeeded, want an error")
	}
}

package embedded_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// start starts a member in dir, stopped in cleanup.
func start(t *testing.T, dir string) *embedded.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: dir, LogLevel: "fatal", UnsafeNoFsync: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// connect returns a client of srv, closed in cleanup.
func connect(t *testing.T, srv *embedded.Server) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("cannot connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestStartServesLoopback(t *testing.T) {
	srv := start(t, t.TempDir())
	eps := srv.Endpoints()
	if len(eps) != 1 || !strings.HasPrefix(eps[0], "http://127.0.0.1:") {
		t.Fatalf("Endpoints() = %v; want one http://127.0.0.1:<port> URL", eps)
	}
	c := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, "k", "v"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	first := start(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := connect(t, first).Put(ctx, "kept", "yes"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	second := start(t, dir)
	resp, err := connect(t, second).Get(ctx, "kept")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "yes" {
		t.Fatalf("Get after restart: %v, %v; want kept=yes", err, resp)
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]embedded.Config{
		"no data dir":         {},
		"non-loopback client": {DataDir: t.TempDir(), ClientURL: "http://0.0.0.0:2379"},
		"non-loopback peer":   {DataDir: t.TempDir(), PeerURL: "http://192.0.2.1:2380"},
	} {
		if srv, err := embedded.Start(context.Background(), cfg); err == nil {
			_ = srv.Close()
			t.Errorf("%s: Start succeeded, want an error", name)
		}
	}
}

func TestStartHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: t.TempDir(), LogLevel: "fatal"})
	if err == nil {
		_ = srv.Close()
		t.Fatalf("Start with a cancelled context succeeded")
	}
}

// TestMemberBounds: SnapshotCount makes the member snapshot to disk (a .snap file in
// member/snap) after that many entries instead of etcd's 10,000, and QuotaBackendBytes
// refuses writes once the database outgrows it, with etcd's error.
func TestMemberBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: dir, LogLevel: "fatal", UnsafeNoFsync: true,
		SnapshotCount: 10, QuotaBackendBytes: 1 << 20})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c := srv.Client()
	value := strings.Repeat("x", 64<<10)
	var putErr error
	puts := 0
	for ; puts < 64 && putErr == nil; puts++ { // 4 MiB in all, four times the quota
		_, putErr = c.Put(ctx, fmt.Sprintf("k%d", puts), value)
	}
	if putErr == nil || !strings.Contains(putErr.Error(), "database space exceeded") {
		t.Errorf("after %d puts of 64 KiB under a 1 MiB quota: %v, want etcd's \"database space exceeded\"", puts, putErr)
	}
	snaps, err := filepath.Glob(filepath.Join(dir, "member", "snap", "*.snap"))
	if err != nil {
		t.Fatal(err)
	}
	if puts > 10 && len(snaps) == 0 {
		t.Errorf("no snapshot in %s after %d entries with SnapshotCount 10", filepath.Join(dir, "member", "snap"), puts)
	}
	if puts <= 10 {
		t.Errorf("the quota refused writes after %d puts, before SnapshotCount's 10 entries could be checked", puts)
	}
}

package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestMemoryFlags: --gc-memory-limit takes a quantity, and the embedded etcd's bounds need
// the embedded etcd.
func TestMemoryFlags(t *testing.T) {
	t.Parallel()
	checkValidate(t, []validateCase{
		{[]string{"--gc-memory-limit=512Mi", "--embedded-etcd-snapshot-count=1000", "--embedded-etcd-quota-backend-bytes=8589934592"}, ""},
		{[]string{"--gc-memory-limit=0"}, ""},
		{[]string{"--gc-memory-limit=lots"}, `--gc-memory-limit "lots" is not a quantity such as 512Mi`},
		{[]string{"--gc-memory-limit=-1Gi"}, `--gc-memory-limit "-1Gi" must not be negative`},
		{[]string{"--embedded-etcd-quota-backend-bytes=-1"}, "--embedded-etcd-quota-backend-bytes must not be negative"},
		{[]string{"--embedded-etcd-snapshot-count=100", "--etcd-servers=http://127.0.0.1:2379"}, "need the embedded etcd"},
	})
}

// TestRunSetsTheGCMemoryLimit: Run sets --gc-memory-limit as the process's memory limit
// before it starts serving (here the server then fails: its data directory cannot be made).
// It changes the process's limit, so it does not run in parallel; the limit is restored.
func TestRunSetsTheGCMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), "test-apiserver", []string{"--gc-memory-limit=3Gi", "--data-dir", filepath.Join(file, "data")},
		&stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "cannot create data directory") {
		t.Fatalf("Run = %d, stderr %q; want 1 and the data directory's error", code, stderr.String())
	}
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("memory limit %d after --gc-memory-limit=3Gi, want %d", got, int64(3<<30))
	}
}

// TestConnectEtcdEmbeddedBounds: the embedded member gets --embedded-etcd-snapshot-count and
// --embedded-etcd-quota-backend-bytes: it snapshots to disk after 10 entries and refuses
// writes past a 1 MiB database with etcd's error.
func TestConnectEtcdEmbeddedBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd member; skipped in -short mode")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dataDir := t.TempDir()
	conn, err := connectEtcd(ctx, "", nil, EtcdTLSFiles{}, dataDir, embeddedEtcd{clientURL: "http://127.0.0.1:0",
		snapshotCount: 10, quotaBackendBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	value := strings.Repeat("x", 64<<10)
	var putErr error
	puts := 0
	for ; puts < 64 && putErr == nil; puts++ {
		_, putErr = conn.client.Put(ctx, "/registry/k"+strings.Repeat("0", puts), value)
	}
	if putErr == nil || !strings.Contains(putErr.Error(), "database space exceeded") {
		t.Errorf("after %d puts of 64 KiB with a 1 MiB quota: %v, want etcd's \"database space exceeded\"", puts, putErr)
	}
	snaps, _ := filepath.Glob(filepath.Join(dataDir, "etcd", "member", "snap", "*.snap"))
	if len(snaps) == 0 {
		t.Errorf("no snapshot in <data-dir>/etcd/member/snap after %d entries with a snapshot count of 10", puts)
	}
}

package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// TestStorageBackendFlag: --storage-backend accepts etcd3 and the registered backends only,
// names the ones this server links when given another, and refuses the etcd flags an
// in-process backend makes meaningless.
func TestStorageBackendFlag(t *testing.T) {
	StorageBackends["test-sql"] = func(context.Context, string) ([]string, string, func() error, error) {
		return nil, "", nil, nil
	}
	t.Cleanup(func() { delete(StorageBackends, "test-sql") })
	checkValidate(t, []validateCase{
		{nil, ""},
		{[]string{"--storage-backend=etcd3", "--etcd-servers=http://127.0.0.1:2379"}, ""},
		{[]string{"--storage-backend=test-sql"}, ""},
		{[]string{"--storage-backend=etcd2"}, `--storage-backend "etcd2" is not one this server links (etcd3, test-sql)`},
		{[]string{"--storage-backend=test-sql", "--etcd-servers=http://127.0.0.1:2379"}, "--storage-backend=test-sql starts its own storage: drop --etcd-servers"},
		{[]string{"--storage-backend=test-sql", "--embedded-etcd-client-url=http://127.0.0.1:0"}, "--embedded-etcd-client-url needs the embedded etcd, not --storage-backend=test-sql"},
	})
}

// validateCase is a command line and the error Options.Validate gives for it.
type validateCase struct {
	args []string
	want string // a part of the error; "" when valid
}

// checkValidate parses each case's args into NewOptions' flags and fails t where Validate's
// verdict differs from the case's.
func checkValidate(t *testing.T, cases []validateCase) {
	t.Helper()
	for _, tc := range cases {
		opts := NewOptions()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		opts.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := opts.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want valid", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestConnectStorageBackend: a registered backend is started in the data directory instead
// of the embedded etcd, the server's client talks to the endpoints it returns, its
// description is the readiness line's, and Close stops it after closing the client. The
// backend here is a real etcd member on a plain loopback URL (kine's is tested in
// runtime/storage/kine and example-api/e2e).
func TestConnectStorageBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd member; skipped in -short mode")
	}
	t.Parallel()
	var gotDir string
	stopped := false
	backends := map[string]StorageBackend{"test-etcd": func(ctx context.Context, dataDir string) ([]string, string, func() error, error) {
		gotDir = dataDir
		m, err := embedded.Start(ctx, embedded.Config{DataDir: dataDir + "/test-etcd", ClientURL: "http://127.0.0.1:0", UnsafeNoFsync: true, LogLevel: "fatal"})
		if err != nil {
			return nil, "", nil, err
		}
		return m.Endpoints(), "test etcd", func() error { stopped = true; return m.Close() }, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	conn, err := startStorageBackendFrom(ctx, backends, "test-etcd", dir)
	if err != nil {
		t.Fatal(err)
	}
	if gotDir != dir || conn.describe != "test etcd" || conn.embedded != nil {
		t.Errorf("backend started in %q, describe %q, embedded %v; want %q, the backend's description, no embedded etcd", gotDir, conn.describe, conn.embedded, dir)
	}
	if _, err := conn.client.Put(ctx, "/registry/probe", "x"); err != nil {
		t.Fatalf("put through the backend: %v", err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if !stopped {
		t.Error("Close did not stop the backend")
	}
}

package kine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/k3s-io/kine/pkg/drivers/sqlite"
)

// maxSocketPath is the longest unix socket path Linux accepts (sun_path less its NUL).
const maxSocketPath = 107

// SQLiteEndpoint returns the Config.Endpoint of the SQLite database file at path, with
// kine's default parameters (WAL journal, 30s busy timeout, NORMAL synchronous).
func SQLiteEndpoint(path string) string {
	return "sqlite://" + path + "?" + sqlite.DefaultParams
}

// EmbeddedSQLite starts kine on SQLite in <dataDir>/kine/state.db, serving etcd's API on
// the unix socket <dataDir>/kine/kine.sock (or, when that path is longer than a socket's
// may be, on a free 127.0.0.1 port), for --storage-backend=kine-sqlite: its signature is
// app.StorageBackend's (this package does not import runtime/app). It returns the client
// URLs, a line for the server's readiness message, and the function that stops kine.
// Errors: as Start's, or the directory cannot be made.
func EmbeddedSQLite(ctx context.Context, dataDir string) (endpoints []string, describe string, stop func() error, err error) {
	dir, err := filepath.Abs(filepath.Join(dataDir, "kine"))
	if err != nil {
		return nil, "", nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", nil, fmt.Errorf("cannot make kine's directory: %w", err)
	}
	db := filepath.Join(dir, "state.db")
	listen := "unix://" + filepath.Join(dir, "kine.sock")
	if len(listen)-len("unix://") > maxSocketPath {
		listen = "127.0.0.1:0"
	}
	srv, err := Start(ctx, Config{Endpoint: SQLiteEndpoint(db), Listen: listen})
	if err != nil {
		return nil, "", nil, err
	}
	describe = fmt.Sprintf("kine %s on SQLite, %s, client URL %s (etcdctl --endpoints=%s)", KineVersion, db, srv.Endpoints()[0], srv.Endpoints()[0])
	return srv.Endpoints(), describe, srv.Close, nil
}

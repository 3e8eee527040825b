package kine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apigen-dev/apigen/internal/pgtest"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/kine"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// notifyInterval is the tests' progress-notification interval: the kit's bookmarks test
// waits for one.
const notifyInterval = 200 * time.Millisecond

// startKine starts kine on endpoint, listening on a free loopback port (as a kine process
// --etcd-servers points at), stopped in cleanup, and returns a client of it.
func startKine(t *testing.T, endpoint string) *clientv3.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := kine.Start(ctx, kine.Config{Endpoint: endpoint, Listen: "127.0.0.1:0",
		NotifyInterval: notifyInterval, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	client, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() }) // before kine stops
	return client
}

// runKit runs the storage kit on etcd3 stores over client, their replicas over replica
// (another kine on the same database, or another client of the same one).
func runKit(t *testing.T, client, replica *clientv3.Client) {
	var n atomic.Int64
	var prefix string
	storagetest.Run(t, storagetest.Backend{
		New: func(t *testing.T) storage.Interface {
			prefix = fmt.Sprintf("/registry/test.apigen.dev/widgets-%d", n.Add(1))
			return etcd3.New(client, testapi.Codec(), testapi.NewWidget, prefix, testapi.Resource)
		},
		NewReference: func(t *testing.T) storage.Interface {
			return etcd3.New(client, testapi.Codec(), testapi.NewWidget, prefix, testapi.Resource)
		},
		NewReplica: func(t *testing.T) storage.Interface {
			return etcd3.New(replica, testapi.Codec(), testapi.NewWidget, prefix, testapi.Resource)
		},
		Compact:          func(t *testing.T) { compactNow(t, client) },
		BookmarkInterval: notifyInterval,
	})
}

// compactNow compacts at the current revision through etcd's Compact, which kine carries out
// only because Start turned its own compactor off.
func compactNow(t *testing.T, client *clientv3.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := client.Get(ctx, "compact-probe")
	if err != nil {
		t.Fatalf("cannot read kine's revision: %v", err)
	}
	if _, err := client.Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatalf("cannot compact kine: %v", err)
	}
}

// TestKitSQLite: the storage contract holds for etcd3 on kine over SQLite, reached as
// --etcd-servers reaches a kine endpoint (gRPC on a loopback port).
func TestKitSQLite(t *testing.T) {
	t.Parallel()
	client := startKine(t, kine.SQLiteEndpoint(filepath.Join(t.TempDir(), "state.db")))
	// kine reports etcd 3.6.11: the server's watch caches serve consistent reads.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ok, err := etcd3.SupportsWatchProgress(ctx, client); !ok || err != nil {
		t.Errorf("SupportsWatchProgress of kine: %v, %v; want true", ok, err)
	}
	runKit(t, client, client)
}

// TestKitPostgres: the storage contract holds for etcd3 on kine over a real PostgreSQL, with
// the replica on a second kine process over the same database (two API servers, each with
// its kine, as k3s servers share an external datastore).
func TestKitPostgres(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	client := startKine(t, pg.URL("kine"))
	replica := startKine(t, pg.URL("kine"))
	runKit(t, client, replica)
}

// TestCompactorOnKine: the server's compactor (--etcd-compaction-interval) compacts kine:
// kine recognises kube-apiserver's compact_rev_key transaction, and, its own compactor off,
// carries out the Compact that follows, so an old revision is gone.
func TestCompactorOnKine(t *testing.T) {
	t.Parallel()
	client := startKine(t, kine.SQLiteEndpoint(filepath.Join(t.TempDir(), "state.db")))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := client.Put(ctx, "/registry/k", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Put(ctx, "/registry/k", "v2"); err != nil {
		t.Fatal(err)
	}
	etcd3.StartCompactor(ctx, client, 50*time.Millisecond)
	for {
		// The compactor compacts at the revision it saw an interval earlier: keep writing.
		if _, err := client.Put(ctx, "/registry/other", "x"); err != nil {
			t.Fatal(err)
		}
		_, err := client.Get(ctx, "/registry/k", clientv3.WithRev(first.Header.Revision))
		if err != nil {
			if err.Error() != "etcdserver: mvcc: required revision has been compacted" {
				t.Fatalf("read at a compacted revision: got %v, want etcd's ErrCompacted", err)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("revision %d still readable after 30s of the compactor", first.Header.Revision)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestStartRefusesBadConfig: kine serves without TLS or authentication, so Start listens
// only on loopback or a unix socket; an endpoint whose driver is not linked is named, and a
// postgres password never appears in the error.
func TestStartRefusesBadConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		cfg  kine.Config
		want string
	}{
		{kine.Config{Endpoint: "sqlite:///tmp/x.db", Listen: "0.0.0.0:2379"}, "must be a loopback address"},
		{kine.Config{Endpoint: "sqlite:///tmp/x.db", Listen: "unix://relative.sock"}, "must be absolute"},
		{kine.Config{Endpoint: "mysql://root:secret@tcp(127.0.0.1:3306)/kine", Listen: "127.0.0.1:0"}, `scheme "mysql" is not linked`},
		{kine.Config{Endpoint: "no-scheme", Listen: "127.0.0.1:0"}, "want sqlite://<file> or postgres://<url>"},
	} {
		_, err := kine.Start(ctx, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%+v): %v, want an error containing %q", tc.cfg, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Start(%+v): the error shows the password: %v", tc.cfg, err)
		}
	}
}

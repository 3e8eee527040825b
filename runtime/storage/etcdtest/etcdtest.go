package etcdtest

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// ProgressNotifyInterval is the etcd progress-notify interval of a Run member: a watch that
// asks for bookmarks sees one at least this often when nothing else happens.
const ProgressNotifyInterval = 200 * time.Millisecond

// LogLevel is the etcd log level of a Run member: "fatal", because etcd logs harmless
// errors at level "error" whenever a member stops.
const LogLevel = "fatal"

// Run starts embedded etcd on free loopback ports in t.TempDir() with quiet logs, registers
// cleanup, and returns a connected client (closed in cleanup) and the server (so fault tests
// can stop it). Run fails the test (t.Fatal) when etcd cannot start.
func Run(t testing.TB) (*clientv3.Client, *embedded.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := embedded.Start(ctx, embedded.Config{
		DataDir:                     t.TempDir(),
		WatchProgressNotifyInterval: ProgressNotifyInterval,
		UnsafeNoFsync:               true,
		LogLevel:                    LogLevel,
	})
	if err != nil {
		t.Fatalf("cannot start etcd: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return NewClient(t, srv), srv
}

// NewClient returns another client of srv (a member Run started), closed in cleanup before
// the member stops: two storages over two clients of one member are two servers sharing an
// etcd. NewClient fails the test when it cannot connect.
func NewClient(t testing.TB, srv *embedded.Server) *clientv3.Client {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   srv.Endpoints(),
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatalf("cannot connect to etcd at %v: %v", srv.Endpoints(), err)
	}
	// Cleanups run last-registered first: the client closes before the server stops.
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// RunCluster starts an n-member etcd cluster on free loopback ports in t.TempDir() with
// quiet logs (embedded.StartCluster: members named m-0, m-1, ...), stops it in cleanup, and
// returns the members (so fault tests can stop one) and their client URLs. It fails the test
// when the cluster cannot start.
func RunCluster(t testing.TB, n int) ([]*embedded.Server, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := embedded.StartCluster(ctx, t.TempDir(), n, embedded.Config{Name: "m", LogLevel: LogLevel, UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.Members, c.Endpoints()
}

package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apigen-dev/apigen/internal/freeport"
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
// quiet logs (the members start together: each waits for a quorum), registers their
// cleanup, and returns the members (so fault tests can stop one) and their client URLs. A
// peer port found free may be taken before its member binds it (by a test in another
// package, or an outgoing connection's ephemeral port); the cluster is then started again on
// new ports, up to clusterAttempts times. It fails the test when the cluster cannot start.
func RunCluster(t testing.TB, n int) ([]*embedded.Server, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	for attempt := 1; ; attempt++ {
		members, err := startCluster(ctx, t, filepath.Join(dir, fmt.Sprint(attempt)), n)
		if err == nil {
			t.Cleanup(func() { closeMembers(members) })
			var endpoints []string
			for _, m := range members {
				endpoints = append(endpoints, m.Endpoints()...)
			}
			return members, endpoints
		}
		closeMembers(members)
		if !errors.Is(err, syscall.EADDRINUSE) || attempt == clusterAttempts {
			t.Fatalf("cannot start a %d-member etcd cluster: %v", n, err)
		}
	}
}

// clusterAttempts is how many times RunCluster starts a cluster whose peer port was taken.
const clusterAttempts = 3

// startCluster starts n members with peer URLs on free ports under dir, together, and
// returns those that started (nil for the others) and every member's error joined.
func startCluster(ctx context.Context, t testing.TB, dir string, n int) ([]*embedded.Server, error) {
	peers, pairs := make([]string, n), make([]string, n)
	for i := range n {
		peers[i] = "http://" + pickAddr(t)
		pairs[i] = fmt.Sprintf("m%d=%s", i, peers[i])
	}
	members, errs := make([]*embedded.Server, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			members[i], errs[i] = embedded.Start(ctx, embedded.Config{
				DataDir: filepath.Join(dir, fmt.Sprint(i)), Name: fmt.Sprintf("m%d", i), PeerURL: peers[i],
				InitialCluster: strings.Join(pairs, ","), LogLevel: LogLevel, UnsafeNoFsync: true,
			})
		})
	}
	wg.Wait()
	return members, errors.Join(errs...)
}

// closeMembers stops the started members concurrently: a member's Close waits up to a
// second for its peers' connections.
func closeMembers(members []*embedded.Server) {
	var wg sync.WaitGroup
	for _, m := range members {
		if m != nil {
			wg.Go(func() { _ = m.Close() })
		}
	}
	wg.Wait()
}

// pickAddr is freeport.Addr; tests replace it.
var pickAddr = freeport.Addr

package embedded

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// takeFirstPick holds a free port until the test ends and makes pickPort return it first
// (then free ports) until the test ends; it returns the listener holding the port, the
// port, and the count of picks so far.
func takeFirstPick(t *testing.T) (net.Listener, int, *int) {
	t.Helper()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = taken.Close() })
	takenPort := taken.Addr().(*net.TCPAddr).Port
	calls := 0
	pickPort = func() (int, error) {
		calls++
		if calls == 1 {
			return takenPort, nil
		}
		return freePort()
	}
	t.Cleanup(func() { pickPort = freePort })
	return taken, takenPort, &calls
}

// TestStartPicksAgainWhenAPortIsTaken: a port found free but taken before etcd listens on
// it (here: held by the test) makes Start pick new ports instead of failing.
func TestStartPicksAgainWhenAPortIsTaken(t *testing.T) {
	taken, takenPort, calls := takeFirstPick(t)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := Start(ctx, Config{DataDir: t.TempDir(), LogLevel: "fatal", UnsafeNoFsync: true})
	if err != nil {
		t.Fatalf("Start with a taken port: %v", err)
	}
	defer srv.Close()
	if *calls < 3 {
		t.Errorf("ports picked %d times, want a second pick after the taken one", *calls)
	}
	for _, ep := range srv.Endpoints() {
		if strings.HasSuffix(ep, ":"+strconv.Itoa(takenPort)) {
			t.Errorf("serving on the taken port: %v", srv.Endpoints())
		}
	}

	// A taken port the caller chose is the caller's error.
	if _, err := Start(ctx, Config{DataDir: t.TempDir(), LogLevel: "fatal", ClientURL: "http://" + taken.Addr().String(),
		PeerURL: "http://127.0.0.1:0"}); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Start on a taken ClientURL: %v, want address already in use", err)
	}
}

func TestLoneMemberKeepsFewRaftEntries(t *testing.T) {
	lone, err := etcdConfig(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if lone.SnapshotCatchUpEntries != loneMemberCatchUpEntries {
		t.Errorf("lone member keeps %d raft entries, want %d", lone.SnapshotCatchUpEntries, loneMemberCatchUpEntries)
	}
	member, err := etcdConfig(Config{DataDir: t.TempDir(), Name: "a", PeerURL: "http://127.0.0.1:23801",
		InitialCluster: "a=http://127.0.0.1:23801,b=http://127.0.0.1:23802"})
	if err != nil {
		t.Fatal(err)
	}
	if want := embed.NewConfig().SnapshotCatchUpEntries; member.SnapshotCatchUpEntries != want {
		t.Errorf("cluster member keeps %d raft entries, want etcd's default %d (followers catch up from them)", member.SnapshotCatchUpEntries, want)
	}
}

// TestStartClusterPicksAgainWhenAPeerPortIsTaken: a peer port found free but taken before
// its member listens on it (here: held by the test) makes StartCluster start the cluster
// again on new ports instead of failing. One member keeps it quick: members started beside
// a missing peer take seconds to stop.
func TestStartClusterPicksAgainWhenAPeerPortIsTaken(t *testing.T) {
	takeFirstPick(t) // the first peer port picked is taken

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	c, err := StartCluster(ctx, dir, 1, Config{Name: "m", LogLevel: "fatal", UnsafeNoFsync: true})
	if err != nil {
		t.Fatalf("StartCluster with a taken peer port: %v", err)
	}
	defer c.Close()
	if len(c.Members) != 1 || len(c.Endpoints()) != 1 {
		t.Fatalf("StartCluster = %d members, endpoints %v; want 1 and 1", len(c.Members), c.Endpoints())
	}
	if _, err := os.Stat(filepath.Join(dir, "attempt-2", "m-0")); err != nil {
		t.Errorf("no second attempt's member directory: %v", err)
	}
	if _, err := c.Members[0].Client().Put(ctx, "k", "v"); err != nil {
		t.Errorf("Put through the cluster's member: %v", err)
	}
}

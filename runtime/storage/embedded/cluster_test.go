package embedded_test

import (
	"context"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/internal/freeport"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestCluster starts three members as one cluster (concurrently: each Start waits for a
// quorum) and checks that a write through one member is read through each of the others.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster; skipped in -short mode")
	}
	const n = 3
	members, _ := etcdtest.RunCluster(t, n) // embedded.Config.InitialCluster, one member per name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := connect(t, members[0]).Put(ctx, "shared", "written through m0"); err != nil {
		t.Fatalf("Put through m0: %v", err)
	}
	for i, m := range members[1:] {
		c := connect(t, m)
		resp, err := c.Get(ctx, "shared")
		if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "written through m0" {
			t.Errorf("Get through m%d: %v, %v; want the value written through m0", i+1, err, resp)
		}
		members, err := c.MemberList(ctx)
		if err != nil || len(members.Members) != n {
			t.Errorf("MemberList through m%d: %v, %v; want %d members", i+1, err, members, n)
		}
	}
}

func TestClusterRejectsBadConfig(t *testing.T) {
	peer := "http://" + freeport.Addr(t)
	for name, cfg := range map[string]embedded.Config{
		"no peer URL":       {InitialCluster: "apigen=" + peer},
		"member missing":    {PeerURL: peer, InitialCluster: "other=" + peer},
		"other peer URL":    {PeerURL: peer, InitialCluster: "apigen=http://127.0.0.1:1"},
		"non-loopback peer": {PeerURL: peer, InitialCluster: "apigen=" + peer + ",other=http://192.0.2.1:2380"},
		"malformed":         {PeerURL: peer, InitialCluster: "apigen"},
	} {
		cfg.DataDir = t.TempDir()
		if srv, err := embedded.Start(context.Background(), cfg); err == nil {
			_ = srv.Close()
			t.Errorf("%s: Start succeeded, want an error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

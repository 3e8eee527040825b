package etcdtest

import (
	"net"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/internal/freeport"
)

// TestRunClusterPicksAgainWhenAPeerPortIsTaken: a peer port found free but taken before its
// member binds it (here: held by the test) makes RunCluster start the cluster again on new
// ports instead of failing the test. One member keeps it quick: members started beside a
// missing peer take seconds to stop.
func TestRunClusterPicksAgainWhenAPeerPortIsTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	calls := 0
	pickAddr = func(t testing.TB) string {
		calls++
		if calls == 1 {
			return taken.Addr().String()
		}
		return freeport.Addr(t)
	}
	t.Cleanup(func() { pickAddr = freeport.Addr })

	members, endpoints := RunCluster(t, 1)
	if calls != 2 {
		t.Errorf("peer addresses picked %d times, want 2 (a second cluster after the taken port)", calls)
	}
	if len(members) != 1 || len(endpoints) != 1 {
		t.Fatalf("RunCluster = %d members, endpoints %v; want 1 and 1", len(members), endpoints)
	}
	client := NewClient(t, members[0])
	if _, err := client.Put(t.Context(), "k", "v"); err != nil {
		t.Fatalf("Put through the restarted cluster: %v", err)
	}
	for _, ep := range endpoints {
		if strings.HasSuffix(ep, taken.Addr().String()) {
			t.Errorf("a member serves on the taken address: %v", endpoints)
		}
	}
}

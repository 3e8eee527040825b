package etcd3_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// twoRevisions writes key twice and returns the revision of the first write.
func twoRevisions(t *testing.T, client *clientv3.Client, key string) int64 {
	t.Helper()
	ctx := context.Background()
	first, err := client.Put(ctx, key, "1")
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if _, err := client.Put(ctx, key, "2"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	return first.Header.Revision
}

func TestStartCompactorCompacts(t *testing.T) {
	client, _ := etcdtest.Run(t)
	old := twoRevisions(t, client, "k")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	etcd3.StartCompactor(ctx, client, 50*time.Millisecond)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := client.Get(ctx, "k", clientv3.WithRev(old))
		if errors.Is(err, rpctypes.ErrCompacted) {
			break
		}
		if err != nil {
			t.Fatalf("Get at %d: %v", old, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("revision %d still readable after 5s of compaction every 50ms", old)
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := client.Get(ctx, "compact_rev_key")
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].Version < 2 {
		t.Errorf("compact_rev_key after compactions: %v, %v; want version >= 2", err, resp)
	}
}

func TestStartCompactorDisabled(t *testing.T) {
	client, _ := etcdtest.Run(t)
	old := twoRevisions(t, client, "k")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	etcd3.StartCompactor(ctx, client, 0)
	time.Sleep(200 * time.Millisecond)
	if _, err := client.Get(ctx, "k", clientv3.WithRev(old)); err != nil {
		t.Errorf("Get at %d with the compactor disabled: %v", old, err)
	}
}

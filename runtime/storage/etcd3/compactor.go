package etcd3

import (
	"context"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactRevKey is the key compactors sharing an etcd cluster coordinate through; its
// Version counts compactions. The name is kube-apiserver's, so apigen servers and
// kube-apiservers sharing one etcd do not compact twice per interval.
const compactRevKey = "compact_rev_key"

// StartCompactor compacts revisions older than the one seen interval ago, every interval,
// until ctx ends; interval <= 0 disables it. As kube-apiserver's compactor
// (--etcd-compaction-interval, default 5m): several servers sharing one etcd take turns
// through a transaction on compact_rev_key, so history is compacted once per interval. It
// returns at once; the work runs in a goroutine that ends with ctx. Failures are retried at
// the next interval.
func StartCompactor(ctx context.Context, client *clientv3.Client, interval time.Duration) {
	if interval <= 0 {
		return
	}
	go func() {
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		var version, rev int64
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
			if v, r, err := compact(ctx, client, version, rev); err == nil {
				version, rev = v, r
			}
		}
	}()
}

// compact compacts etcd to rev if no other compactor has run since this one last saw
// compact_rev_key at version; it returns the key's new version and etcd's current revision,
// the revision to compact at the next interval. rev 0 (the first round) compacts nothing.
func compact(ctx context.Context, client *clientv3.Client, version, rev int64) (int64, int64, error) {
	resp, err := client.Txn(ctx).If(
		clientv3.Compare(clientv3.Version(compactRevKey), "=", version),
	).Then(
		clientv3.OpPut(compactRevKey, strconv.FormatInt(rev, 10)),
	).Else(
		clientv3.OpGet(compactRevKey),
	).Commit()
	if err != nil {
		return version, rev, fmt.Errorf("cannot coordinate compaction: %w", err)
	}
	current := resp.Header.Revision
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().GetKvs()
		if len(kvs) == 0 {
			return 0, current, nil
		}
		return kvs[0].Version, current, nil
	}
	if rev == 0 {
		return version + 1, current, nil
	}
	if _, err := client.Compact(ctx, rev); err != nil {
		return version + 1, current, fmt.Errorf("cannot compact etcd at revision %d: %w", rev, err)
	}
	return version + 1, current, nil
}

package etcd3

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactionRetry is how long a CompactionTracker waits before it reads and watches
// compact_rev_key again after a failure.
const compactionRetry = time.Second

// CompactionTracker follows the revision etcd was last compacted at, as the compactors
// sharing an etcd (StartCompactor, kube-apiserver's) record it in compact_rev_key before
// they compact, so that a watch cache stops serving lists at revisions etcd no longer has,
// as kube-apiserver's watch cache drops its snapshots at the compacted revision. A compaction
// made without compact_rev_key (etcdctl compact) is not seen. Safe for concurrent use.
type CompactionTracker struct {
	rev atomic.Int64
}

// TrackCompactions returns a CompactionTracker that reads compact_rev_key and watches it
// until ctx ends (in a goroutine; failures are retried every second).
func TrackCompactions(ctx context.Context, client *clientv3.Client) *CompactionTracker {
	t := &CompactionTracker{}
	go t.run(ctx, client)
	return t
}

// Revision returns the last compacted revision seen: reads at older revisions fail with 410
// Expired. 0 when none is known.
func (t *CompactionTracker) Revision() int64 { return t.rev.Load() }

// observe records value, a compact_rev_key value, when it is a newer revision.
func (t *CompactionTracker) observe(value []byte) {
	rev, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return
	}
	for {
		old := t.rev.Load()
		if rev <= old || t.rev.CompareAndSwap(old, rev) {
			return
		}
	}
}

// run reads compact_rev_key, then watches it from there, again after each failure.
func (t *CompactionTracker) run(ctx context.Context, client *clientv3.Client) {
	for ctx.Err() == nil {
		resp, err := client.Get(ctx, compactRevKey)
		if err == nil {
			if len(resp.Kvs) > 0 {
				t.observe(resp.Kvs[0].Value)
			}
			wch := client.Watch(clientv3.WithRequireLeader(ctx), compactRevKey, clientv3.WithRev(resp.Header.Revision+1))
			for wresp := range wch {
				for _, ev := range wresp.Events {
					t.observe(ev.Kv.Value)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(compactionRetry):
		}
	}
}

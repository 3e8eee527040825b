package etcd3

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Bounds of a readBatcher.
const (
	// maxReadBatch is the most keys one transaction reads: half etcd's default
	// --max-txn-ops (128). A smaller limit of the etcd server is found and kept.
	maxReadBatch = 64
	// maxReadsInFlight is how many reads (transactions or single gets) one batcher has
	// outstanding at etcd at once; reads asked for meanwhile wait and go together in the next.
	maxReadsInFlight = 2
)

// readBatcher coalesces concurrent linearizable reads of single keys into read-only etcd
// transactions, one Range per key. A read that finds fewer than maxReadsInFlight reads
// outstanding is sent at once, together with the reads waiting (alone, it is a plain Get);
// otherwise it waits for the next to return. etcd serves a read-only transaction as it serves
// a Range: linearizably (one ReadIndex), at one revision, without a raft entry. So each read
// still sees every write acknowledged before it was asked, as a clientv3 Get would, and one
// round trip serves many: under load, a quorum GET costs the server and etcd a fraction of a
// request each. (etcd batches the ReadIndex of concurrent reads in the same way;
// kube-apiserver's consistent reads from its watch cache share one progress request.) Safe
// for concurrent use.
type readBatcher struct {
	kv clientv3.KV

	mu       sync.Mutex
	pending  []*keyRead // waiting for a batch, in order of arrival
	inFlight int        // batches sent and not yet returned
	limit    int        // keys per transaction
}

func newReadBatcher(kv clientv3.KV) *readBatcher {
	return &readBatcher{kv: kv, limit: maxReadBatch}
}

// keyRead is one read, waiting or in a batch.
type keyRead struct {
	key   string
	batch *readBatch    // set, under the batcher's mu, when its batch is formed
	done  chan struct{} // closed once kv, rev and err are set
	kv    *mvccpb.KeyValue
	rev   int64
	err   error
}

// readBatch is reads sent together. Its context ends when it returns or when every read in
// it has been abandoned by its caller.
type readBatch struct {
	reads  []*keyRead
	ctx    context.Context
	cancel context.CancelFunc
	live   atomic.Int32 // reads whose callers still wait
}

// get reads key linearizably and returns its KeyValue (nil when absent) and the revision of
// the read. Errors: etcd's, or ctx's when it ends first (the read is then abandoned) or has
// already ended (nothing is read, as gRPC sends no call with an ended context: a read that
// finished before the wait began would otherwise be returned half the time, select
// choosing at random between it and ctx, and a request past its deadline answered).
func (b *readBatcher) get(ctx context.Context, key string) (*mvccpb.KeyValue, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	r := &keyRead{key: key, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, r)
	var batch *readBatch
	if b.inFlight < maxReadsInFlight {
		b.inFlight++
		batch = b.formLocked()
	}
	b.mu.Unlock()
	if batch != nil {
		go b.run(batch)
	}
	select {
	case <-r.done:
		return r.kv, r.rev, r.err
	case <-ctx.Done():
		b.abandon(r)
		return nil, 0, ctx.Err()
	}
}

// formLocked takes the oldest pending reads, up to the limit, into a new batch. b.mu must be
// held and pending not empty.
func (b *readBatcher) formLocked() *readBatch {
	n := min(len(b.pending), b.limit)
	ctx, cancel := context.WithCancel(context.Background())
	batch := &readBatch{reads: b.pending[:n:n], ctx: ctx, cancel: cancel}
	batch.live.Store(int32(n))
	for _, r := range batch.reads {
		r.batch = batch
	}
	b.pending = b.pending[n:]
	if len(b.pending) == 0 {
		b.pending = nil // let the old array go
	}
	return batch
}

// abandon forgets r, whose caller stopped waiting: a pending read is dropped; the batch of one
// sent is cancelled once none of its callers waits any more.
func (b *readBatcher) abandon(r *keyRead) {
	b.mu.Lock()
	batch := r.batch
	if batch == nil {
		for i, p := range b.pending {
			if p == r {
				b.pending = append(b.pending[:i], b.pending[i+1:]...)
				break
			}
		}
	}
	b.mu.Unlock()
	if batch != nil && batch.live.Add(-1) == 0 {
		batch.cancel()
	}
}

// run sends batch and then, while reads wait, the next batches; it ends when none waits.
func (b *readBatcher) run(batch *readBatch) {
	for batch != nil {
		b.send(batch.ctx, batch.reads)
		batch.cancel()
		b.mu.Lock()
		batch = nil
		if len(b.pending) > 0 {
			batch = b.formLocked()
		} else {
			b.inFlight--
		}
		b.mu.Unlock()
	}
}

// send reads the keys of reads in one round trip and gives each read its result. A
// transaction etcd refuses as too large (its --max-txn-ops is under the limit) halves the
// limit and is sent again in parts of the new limit. One that fails otherwise (etcd
// unavailable: clientv3 retries a Get, never a Txn) is sent again as one Get per key, with
// clientv3's retries.
func (b *readBatcher) send(ctx context.Context, reads []*keyRead) {
	if len(reads) == 1 {
		resp, err := b.kv.Get(ctx, reads[0].key)
		reads[0].deliver(resp, err)
		return
	}
	ops := make([]clientv3.Op, len(reads))
	for i, r := range reads {
		ops[i] = clientv3.OpGet(r.key)
	}
	resp, err := b.kv.Txn(ctx).Then(ops...).Commit()
	if err == nil && len(resp.Responses) == len(reads) {
		for i, r := range reads {
			r.kv, r.rev = firstKV(resp.Responses[i].GetResponseRange().GetKvs()), resp.Header.Revision
			close(r.done)
		}
		return
	}
	if ctx.Err() != nil { // every caller gave up: nobody to retry for
		for _, r := range reads {
			r.err = err
			close(r.done)
		}
		return
	}
	if errors.Is(rpctypes.Error(err), rpctypes.ErrTooManyOps) {
		b.mu.Lock()
		b.limit = max(1, min(b.limit, len(reads))/2)
		limit := b.limit
		b.mu.Unlock()
		for part := range slices.Chunk(reads, limit) {
			b.send(ctx, part)
		}
		return
	}
	var wg sync.WaitGroup
	for _, r := range reads {
		wg.Go(func() {
			resp, err := b.kv.Get(ctx, r.key)
			r.deliver(resp, err)
		})
	}
	wg.Wait()
}

// deliver gives r the result of a Get of its key.
func (r *keyRead) deliver(resp *clientv3.GetResponse, err error) {
	if err != nil {
		r.err = err
	} else {
		r.kv, r.rev = firstKV(resp.Kvs), resp.Header.Revision
	}
	close(r.done)
}

// firstKV returns the first of kvs, or nil.
func firstKV(kvs []*mvccpb.KeyValue) *mvccpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	return kvs[0]
}

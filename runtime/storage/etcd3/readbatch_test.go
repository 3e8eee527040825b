package etcd3

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apigen-dev/apigen/runtime/storage/embedded"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// countingKV is a real etcd client that counts the Gets and Txns a readBatcher sends and,
// while hold is open, keeps each waiting before it goes to etcd (until hold is closed or its
// context ends), so that a test can make reads pile up.
type countingKV struct {
	clientv3.KV
	gets, txns atomic.Int32
	largestTxn atomic.Int32
	hold       chan struct{}
}

func (c *countingKV) wait(ctx context.Context) {
	if c.hold != nil {
		select {
		case <-c.hold:
		case <-ctx.Done():
		}
	}
}

func (c *countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	c.gets.Add(1)
	c.wait(ctx)
	return c.KV.Get(ctx, key, opts...)
}

func (c *countingKV) Txn(ctx context.Context) clientv3.Txn {
	return &countingTxn{Txn: c.KV.Txn(ctx), kv: c, ctx: ctx}
}

type countingTxn struct {
	clientv3.Txn
	kv  *countingKV
	ctx context.Context
	ops int32
}

func (t *countingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.ops = int32(len(ops))
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *countingTxn) Commit() (*clientv3.TxnResponse, error) {
	t.kv.txns.Add(1)
	for {
		largest := t.kv.largestTxn.Load()
		if t.ops <= largest || t.kv.largestTxn.CompareAndSwap(largest, t.ops) {
			break
		}
	}
	t.kv.wait(t.ctx)
	return t.Txn.Commit()
}

// putKeys writes n keys /k/0 ... and returns the revision of the last write.
func putKeys(t *testing.T, client *clientv3.Client, n int) int64 {
	t.Helper()
	var rev int64
	for i := range n {
		resp, err := client.Put(context.Background(), fmt.Sprintf("/k/%d", i), fmt.Sprintf("v%d", i))
		if err != nil {
			t.Fatal(err)
		}
		rev = resp.Header.Revision
	}
	return rev
}

// waitPending waits, at most 10s, until n reads are pending in b; it fails the test otherwise.
func waitPending(t *testing.T, b *readBatcher, n int) {
	t.Helper()
	waitBatcher(t, b, fmt.Sprintf("%d pending", n), func(_, pending int) bool { return pending == n })
}

// waitIdle waits, at most 10s, until b has no batch in flight and no read pending, as it must
// once every read has returned (a batch's goroutine gives its last read the result before it
// frees its slot); it fails the test otherwise.
func waitIdle(t *testing.T, b *readBatcher) {
	t.Helper()
	waitBatcher(t, b, "none in flight or pending", func(inFlight, pending int) bool { return inFlight == 0 && pending == 0 })
}

// waitBatcher polls b's batches in flight and pending reads every millisecond until done
// holds, and fails the test after 10s, saying it wanted want.
func waitBatcher(t *testing.T, b *readBatcher, want string, done func(inFlight, pending int) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		b.mu.Lock()
		inFlight, pending := b.inFlight, len(b.pending)
		b.mu.Unlock()
		if done(inFlight, pending) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("read batcher: %d in flight, %d pending; want %s", inFlight, pending, want)
		}
	}
}

// readAll reads keys /k/0 .. /k/n-1 concurrently through b and checks each value and that
// each read is at least at revision atLeast.
func readAll(t *testing.T, b *readBatcher, n int, atLeast int64, started func()) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			kv, rev, err := b.get(context.Background(), fmt.Sprintf("/k/%d", i))
			switch {
			case err != nil:
				errs <- err
			case kv == nil || string(kv.Value) != fmt.Sprintf("v%d", i):
				errs <- fmt.Errorf("/k/%d: got %v, want v%d", i, kv, i)
			case rev < atLeast:
				errs <- fmt.Errorf("/k/%d read at revision %d, before the last write (%d)", i, rev, atLeast)
			}
		})
	}
	started()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestReadBatcherCoalescesConcurrentReads: reads asked for while the in-flight slots are busy
// go to etcd together, at most maxReadBatch keys a transaction, each with its own key's value
// and at a revision no older than the writes before it; a read of a missing key gets nil.
func TestReadBatcherCoalescesConcurrentReads(t *testing.T) {
	client, _ := etcdtest.Run(t)
	const n = 150
	rev := putKeys(t, client, n)
	kv := &countingKV{KV: client, hold: make(chan struct{})}
	b := newReadBatcher(kv)
	readAll(t, b, n, rev, func() {
		waitPending(t, b, n-maxReadsInFlight) // the first reads hold the slots
		close(kv.hold)
	})
	sent := kv.gets.Load() + kv.txns.Load()
	// The two first reads alone, then the rest in batches of at most 64 (the slots free up
	// as batches return, so the split may vary); one request per read would be 150.
	if limit := int32(maxReadsInFlight + (n-maxReadsInFlight+maxReadBatch-1)/maxReadBatch + maxReadsInFlight); sent > limit {
		t.Errorf("%d requests for %d reads, want at most %d", sent, n, limit)
	}
	if largest := kv.largestTxn.Load(); largest > maxReadBatch || largest < 2 {
		t.Errorf("largest transaction read %d keys, want 2..%d", largest, maxReadBatch)
	}
	if got, _, err := b.get(context.Background(), "/k/missing"); err != nil || got != nil {
		t.Errorf("missing key: %v, %v; want nil, nil", got, err)
	}
	waitIdle(t, b)
}

// TestReadBatcherReadsFollowWrites: a read asked for after a write returns sees it, however
// the reads of concurrent writers are batched (linearizable, as a clientv3 Get).
func TestReadBatcherReadsFollowWrites(t *testing.T) {
	client, _ := etcdtest.Run(t)
	b := newReadBatcher(client)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			key := fmt.Sprintf("/w/%d", w)
			for i := range 40 {
				want := fmt.Sprintf("%d-%d", w, i)
				put, err := client.Put(context.Background(), key, want)
				if err != nil {
					t.Error(err)
					return
				}
				kv, rev, err := b.get(context.Background(), key)
				if err != nil || kv == nil || string(kv.Value) != want || rev < put.Header.Revision {
					t.Errorf("read after writing %s at %d: %v at %d, %v", want, put.Header.Revision, kv, rev, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestReadBatcherAbandonedReads: a read whose caller gives up while it waits for a batch
// returns the context's error at once and is never sent; a batch whose callers all gave up
// is cancelled, and the batcher is idle again.
func TestReadBatcherAbandonedReads(t *testing.T) {
	client, _ := etcdtest.Run(t)
	putKeys(t, client, 1)
	kv := &countingKV{KV: client, hold: make(chan struct{})}
	b := newReadBatcher(kv)
	slotCtx, cancelSlots := context.WithCancel(context.Background())
	var slots sync.WaitGroup
	for range maxReadsInFlight {
		slots.Go(func() {
			if _, _, err := b.get(slotCtx, "/k/0"); !errors.Is(err, context.Canceled) {
				t.Errorf("abandoned in-flight read: %v, want context.Canceled", err)
			}
		})
	}
	for deadline := time.Now().Add(10 * time.Second); kv.gets.Load() < maxReadsInFlight; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d reads sent, want %d", kv.gets.Load(), maxReadsInFlight)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := b.get(ctx, "/k/0"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("pending read past its deadline: %v, want context.DeadlineExceeded", err)
	}
	waitPending(t, b, 0)
	cancelSlots()
	slots.Wait()
	waitIdle(t, b)
	if sent := kv.gets.Load() + kv.txns.Load(); sent != maxReadsInFlight {
		t.Errorf("%d requests sent, want %d (the abandoned pending read must not go)", sent, maxReadsInFlight)
	}
}

// TestReadBatcherEndedContext: a read whose context has already ended returns its error and
// is never sent, however fast etcd would have answered it (a request past its deadline, such
// as ?timeout=1ns, is then a 504 every time).
func TestReadBatcherEndedContext(t *testing.T) {
	client, _ := etcdtest.Run(t)
	putKeys(t, client, 1)
	kv := &countingKV{KV: client}
	b := newReadBatcher(kv)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 100 {
		if got, _, err := b.get(ctx, "/k/0"); !errors.Is(err, context.Canceled) {
			t.Fatalf("read with an ended context: %v, %v; want context.Canceled", got, err)
		}
	}
	waitIdle(t, b)
	if sent := kv.gets.Load() + kv.txns.Load(); sent != 0 {
		t.Errorf("%d reads sent for an ended context, want none", sent)
	}
}

// TestReadBatcherSplitsWhenEtcdRefusesLargeTransactions: against an etcd that accepts at most
// 4 operations a transaction (--max-txn-ops=4), a larger batch is read key by key and the
// batcher keeps to a smaller limit from then on; every read still gets its value.
func TestReadBatcherSplitsWhenEtcdRefusesLargeTransactions(t *testing.T) {
	srv, err := embedded.Start(context.Background(), embedded.Config{
		DataDir: t.TempDir(), UnsafeNoFsync: true, LogLevel: etcdtest.LogLevel, MaxTxnOps: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	const n = 40
	rev := putKeys(t, client, n)
	for round := range 2 {
		kv := &countingKV{KV: client, hold: make(chan struct{})}
		b := newReadBatcher(kv)
		if round == 1 {
			b.limit = 4
		}
		readAll(t, b, n, rev, func() {
			waitPending(t, b, n-maxReadsInFlight)
			close(kv.hold)
		})
		if b.limit > 4 {
			t.Errorf("round %d: limit %d after etcd refused larger transactions, want at most 4", round, b.limit)
		}
		if round == 1 && kv.gets.Load() > maxReadsInFlight {
			t.Errorf("with a limit etcd accepts: %d single gets, want only the %d first reads", kv.gets.Load(), maxReadsInFlight)
		}
	}
}

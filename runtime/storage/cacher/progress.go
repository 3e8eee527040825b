package cacher

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// progressPeriod is how often a cache asks storage's watch for progress while reads wait
// for it to catch up (kube-apiserver's progressRequestPeriod is 100ms; a local etcd answers
// in well under a millisecond).
const progressPeriod = 10 * time.Millisecond

// watchContext marks ctx so that the caches' watches of storage share one etcd watch stream
// of their own (and RequestWatchProgress reaches it), apart from the watches that bypass the
// cache, as kube-apiserver's cacher does with its "source: cache" gRPC metadata: etcd
// answers a progress request only when every watch of the stream has caught up.
// The context is also storage.WithInternalWatch: the cache counts its clients' watches, not
// its own.
func watchContext(ctx context.Context) context.Context {
	return storage.WithInternalWatch(metadata.AppendToOutgoingContext(ctx, "source", "cache"))
}

// progressRequester asks storage's watch for progress while someone waits for it: at once
// when the first waiter comes, then every progressPeriod while waiters remain, as
// kube-apiserver's ConditionalProgressRequester. Safe for concurrent use.
type progressRequester struct {
	ctx       context.Context
	requester storage.ProgressRequester
	mu        sync.Mutex
	waiting   int  // waiters now
	running   bool // run is requesting
}

func newProgressRequester(ctx context.Context, r storage.ProgressRequester) *progressRequester {
	return &progressRequester{ctx: ctx, requester: r}
}

// wait registers a waiter, which asks for progress now and every progressPeriod until the
// returned done is called.
func (p *progressRequester) wait() (done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting++
	if !p.running {
		p.running = true
		go p.run()
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.waiting--
	}
}

// run requests progress every progressPeriod until no waiter is left.
func (p *progressRequester) run() {
	for {
		// An error (storage unreachable) is retried; the waiters time out and read storage.
		_ = p.requester.RequestWatchProgress(p.ctx)
		select {
		case <-p.ctx.Done():
		case <-time.After(progressPeriod):
		}
		p.mu.Lock()
		if p.ctx.Err() != nil || p.waiting == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

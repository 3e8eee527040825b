package cacher

import (
	"sync"
	"time"
)

// Dispatch budget, as kube-apiserver's cacher (k8s.io/apiserver/pkg/storage/cacher's
// time_budget.go): the reflector may wait for watchers whose buffer is full at most the
// budget it has, which refills by budgetRefill a second up to budgetMax; a watcher still
// full when its share of the wait is over is cut off.
const (
	budgetRefill = 50 * time.Millisecond
	budgetMax    = 100 * time.Millisecond
)

// timeBudget is how long the reflector may still block on full watchers, as kube's
// timeBudget, refilled lazily (on take) instead of by a goroutine. Safe for concurrent use.
type timeBudget struct {
	mu     sync.Mutex
	left   time.Duration
	filled time.Time // when left was last refilled
	now    func() time.Time
}

func newTimeBudget() *timeBudget {
	return &timeBudget{left: budgetMax, now: time.Now, filled: time.Now()}
}

// take returns the whole budget available now and leaves none.
func (b *timeBudget) take() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if elapsed := now.Sub(b.filled); elapsed > 0 {
		b.left = min(budgetMax, b.left+time.Duration(float64(budgetRefill)*elapsed.Seconds()))
	}
	b.filled = now
	d := b.left
	b.left = 0
	return d
}

// giveBack returns what a take did not use.
func (b *timeBudget) giveBack(unused time.Duration) {
	if unused <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left = min(budgetMax, b.left+unused)
}

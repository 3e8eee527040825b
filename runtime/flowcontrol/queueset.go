package flowcontrol

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/util/shufflesharding"
)

// The reasons a request is refused, as kube's apiserver_flowcontrol_rejected_requests_total
// labels them.
const (
	reasonQueueFull        = "queue-full"
	reasonConcurrencyLimit = "concurrency-limit"
	reasonTimeOut          = "time-out"
	reasonCancelled        = "cancelled"
)

// queuing is a Queue priority level's queuing parameters; the zero value means Reject.
type queuing struct {
	queues, handSize, queueLengthLimit int
}

// queueSet is one priority level's seats and, for a Queue level, its queues: kube's
// queueset, with a request of width seats costing that many units of virtual time. Requests
// are dispatched in the order of their queue's virtual start time (start-time fair
// queuing): a queue's next request starts at the later of the queue's previous finish and
// the virtual time of the last dispatch when the queue was idle, so a busy flow cannot run
// ahead of the others by more than its queue's turn. When the next request needs more seats
// than are free, dispatching waits for them, as kube's. Safe for concurrent use.
type queueSet struct {
	params queuing
	exempt bool
	dealer *shufflesharding.Dealer // nil for Reject and exempt levels

	mu        sync.Mutex
	limit     int // seats
	executing int
	queues    []*queue
	vt        float64 // the virtual start time of the last dispatched request
	next      int     // where the scan for the earliest queue starts, for ties
}

// queue is one of a Queue level's queues.
type queue struct {
	waiting   []*waiter
	executing int
	start     float64 // the virtual start time of the queue's next request
}

// waiter is a queued request of width seats; ready is closed when it is dispatched.
type waiter struct {
	ready      chan struct{}
	dispatched bool
	width      int
	queued     func(delta int)
}

// newQueueSet returns the seats of a level: exempt (no limit), Reject (q zero) or Queue.
func newQueueSet(limit int, exempt bool, q queuing) (*queueSet, error) {
	s := &queueSet{params: q, exempt: exempt, limit: limit}
	if exempt || q.queues == 0 {
		return s, nil
	}
	d, err := shufflesharding.NewDealer(q.queues, q.handSize)
	if err != nil {
		return nil, err
	}
	s.dealer = d
	s.queues = make([]*queue, q.queues)
	for i := range s.queues {
		s.queues[i] = &queue{}
	}
	return s, nil
}

// setLimit changes the seats, dispatching what the new limit allows.
func (s *queueSet) setLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = n
	s.dispatchLocked()
}

// errNoSeat is admit's error; reason says why.
type errNoSeat struct{ reason string }

func (e *errNoSeat) Error() string { return "request rejected: " + e.reason }

// admit waits for width seats (at most the level's limit) for a request of the flow hash,
// at most waitLimit and while ctx lasts; queued is called with +1 when the request joins a
// queue and -1 when it leaves it. It returns the function that gives the seats back, or an
// *errNoSeat saying why there are none: "concurrency-limit" (Reject level full),
// "queue-full", "time-out" (waitLimit passed, or ctx's deadline) or "cancelled" (ctx
// canceled).
func (s *queueSet) admit(ctx context.Context, waitLimit time.Duration, hash uint64, width int, queued func(delta int)) (func(), error) {
	if s.exempt { // no limit, nothing to count: no lock on the exempt requests' path
		return func() {}, nil
	}
	s.mu.Lock()
	width = max(1, min(width, s.limit))
	if s.dealer == nil {
		if s.executing+width > s.limit {
			s.mu.Unlock()
			return nil, &errNoSeat{reasonConcurrencyLimit}
		}
		s.executing += width
		s.mu.Unlock()
		return s.releaser(nil, width), nil
	}
	q := s.chooseQueueLocked(hash)
	if len(q.waiting) >= s.params.queueLengthLimit {
		s.mu.Unlock()
		return nil, &errNoSeat{reasonQueueFull}
	}
	if len(q.waiting) == 0 && q.executing == 0 && q.start < s.vt {
		q.start = s.vt
	}
	w := &waiter{ready: make(chan struct{}), width: width, queued: queued}
	q.waiting = append(q.waiting, w)
	queued(1)
	s.dispatchLocked()
	if w.dispatched {
		s.mu.Unlock()
		return s.releaser(q, w.width), nil
	}
	s.mu.Unlock()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	timedOut := false
	select {
	case <-w.ready:
		return s.releaser(q, w.width), nil
	case <-ctx.Done():
	case <-timer.C:
		timedOut = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.dispatched { // dispatched while the wait ended
		return s.releaser(q, w.width), nil
	}
	for i, x := range q.waiting {
		if x == w {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			break
		}
	}
	queued(-1)
	if timedOut || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, &errNoSeat{reasonTimeOut}
	}
	return nil, &errNoSeat{reasonCancelled}
}

// chooseQueueLocked deals the flow's hand of queues and picks the one with the fewest
// requests waiting and executing, as kube's shuffle sharding.
func (s *queueSet) chooseQueueLocked(hash uint64) *queue {
	var best *queue
	s.dealer.Deal(hash, func(i int) {
		q := s.queues[i]
		if best == nil || len(q.waiting)+q.executing < len(best.waiting)+best.executing {
			best = q
		}
	})
	return best
}

// dispatchLocked gives free seats to the waiting requests, each time the head of the queue
// with the earliest virtual start time (ties: the first from a rotating position), until
// that head needs more seats than are free.
func (s *queueSet) dispatchLocked() {
	for s.executing < s.limit {
		var q *queue
		n := len(s.queues)
		for k := range n {
			c := s.queues[(s.next+k)%n]
			if len(c.waiting) > 0 && (q == nil || c.start < q.start) {
				q = c
			}
		}
		if q == nil || s.executing+min(q.waiting[0].width, s.limit) > s.limit {
			return
		}
		s.next = (s.next + 1) % n
		w := q.waiting[0]
		q.waiting[0] = nil
		q.waiting = q.waiting[1:]
		w.width = min(w.width, s.limit) // the limit may have shrunk since it queued
		s.vt = q.start
		q.start += float64(w.width)
		q.executing += w.width
		s.executing += w.width
		w.dispatched = true
		w.queued(-1)
		close(w.ready)
	}
}

// releaser returns the function that frees width seats taken from q (nil for a level
// without queues), once however often it is called.
func (s *queueSet) releaser(q *queue, width int) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.executing -= width
			if q != nil {
				q.executing -= width
			}
			s.dispatchLocked()
		})
	}
}

// waitingCount is the number of requests in the level's queues.
func (s *queueSet) waitingCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.queues {
		n += len(q.waiting)
	}
	return n
}

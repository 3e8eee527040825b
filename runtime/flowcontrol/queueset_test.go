package flowcontrol

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/request"
)

// noQueued is admit's queued callback where the test does not count.
func noQueued(int) {}

// mustAdmit admits a request that must get a seat at once.
func mustAdmit(t *testing.T, s *queueSet, hash uint64) func() {
	t.Helper()
	release, err := s.admit(context.Background(), time.Minute, hash, 1, noQueued)
	if err != nil {
		t.Fatalf("admit: %v", err)
	}
	return release
}

// reason returns admit's rejection reason, "" when it was admitted.
func reason(err error) string {
	var e *errNoSeat
	if errors.As(err, &e) {
		return e.reason
	}
	return ""
}

// disjointFlows returns two flow hashes whose hands of s's queues share no queue.
func disjointFlows(t *testing.T, s *queueSet) (uint64, uint64) {
	t.Helper()
	handA := s.dealer.DealIntoHand(hashFlow("fs", "a"), nil)
	for i := range 1000 {
		h := hashFlow("fs", string(rune('b'+i)))
		hand := s.dealer.DealIntoHand(h, nil)
		shared := false
		for _, x := range hand {
			for _, y := range handA {
				shared = shared || x == y
			}
		}
		if !shared {
			return hashFlow("fs", "a"), h
		}
	}
	t.Fatal("no flow with a hand apart from a's")
	return 0, 0
}

// TestShuffleSharding checks that a flow's requests only go to the queues of its hand (the
// shortest first), so that a flow flooding its hand does not fill the queues of a flow whose
// hand is apart from it.
func TestShuffleSharding(t *testing.T) {
	t.Parallel()
	s, err := newQueueSet(0, false, queuing{queues: 16, handSize: 3, queueLengthLimit: 4})
	if err != nil {
		t.Fatal(err)
	}
	a, b := disjointFlows(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	reasons := map[string]int{}
	for range 20 { // 3 queues of 4: 12 wait, 8 find their hand full
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.admit(ctx, time.Minute, a, 1, noQueued)
			mu.Lock()
			reasons[reason(err)]++
			mu.Unlock()
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		full := reasons[reasonQueueFull]
		mu.Unlock()
		if full == 8 && s.waitingCount() == 12 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	hand := s.dealer.DealIntoHand(a, nil)
	for i, q := range s.queues {
		inHand := false
		for _, h := range hand {
			inHand = inHand || h == i
		}
		if want := map[bool]int{true: 4, false: 0}[inHand]; len(q.waiting) != want {
			t.Errorf("queue %d (in a's hand: %v) holds %d, want %d", i, inHand, len(q.waiting), want)
		}
	}
	// b's hand is empty: it queues.
	if _, err := s.admit(ctx, 20*time.Millisecond, b, 1, noQueued); reason(err) != reasonTimeOut {
		t.Errorf("b with no seats: %v, want a time-out after queuing", err)
	}
	cancel()
	wg.Wait()
	if reasons[reasonQueueFull] != 8 || reasons[reasonCancelled] != 12 {
		t.Errorf("a's requests: %v, want 8 queue-full and 12 cancelled", reasons)
	}
}

// TestFairQueuingOrder checks that seats go to the queues in turn: with one seat, a flow
// that queued five requests first and one that queued two after share it, instead of the
// second waiting for all of the first's.
func TestFairQueuingOrder(t *testing.T) {
	t.Parallel()
	s, err := newQueueSet(1, false, queuing{queues: 64, handSize: 1, queueLengthLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	a, b := disjointFlows(t, s)
	hold := mustAdmit(t, s, a)
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	enqueue := func(name string, hash uint64) {
		n := s.waitingCount()
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := s.admit(context.Background(), time.Minute, hash, 1, noQueued)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			release()
		}()
		for s.waitingCount() == n { // queued, in this order
			time.Sleep(100 * time.Microsecond)
		}
	}
	for range 5 {
		enqueue("a", a)
	}
	for range 2 {
		enqueue("b", b)
	}
	hold()
	wg.Wait()
	// FIFO would give aaaaabb; fair queuing serves b's two within the first four (a's queue
	// already had its turn with the seat held).
	if got := strings.Join(order, ""); strings.Count(got[:4], "b") != 2 {
		t.Errorf("dispatch order %q, want both b's among the first four", got)
	}
}

// TestRejection checks each way to 429: a full Reject level (concurrency-limit), a full
// queue (queue-full), a wait reaching its deadline (time-out) or canceled (cancelled), and
// that the exempt level has no limit.
func TestRejection(t *testing.T) {
	t.Parallel()
	reject, _ := newQueueSet(1, false, queuing{})
	release := mustAdmit(t, reject, 1)
	if _, err := reject.admit(context.Background(), time.Minute, 1, 1, noQueued); reason(err) != reasonConcurrencyLimit {
		t.Errorf("Reject level full: %v", err)
	}
	release()
	mustAdmit(t, reject, 1)()

	queue, _ := newQueueSet(0, false, queuing{queues: 1, handSize: 1, queueLengthLimit: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := queue.admit(ctx, time.Minute, 1, 1, noQueued); done <- err }()
	for queue.waitingCount() == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	if _, err := queue.admit(context.Background(), time.Minute, 1, 1, noQueued); reason(err) != reasonQueueFull {
		t.Errorf("queue full: %v", err)
	}
	cancel()
	if err := <-done; reason(err) != reasonCancelled {
		t.Errorf("canceled wait: %v", err)
	}
	if _, err := queue.admit(context.Background(), 5*time.Millisecond, 1, 1, noQueued); reason(err) != reasonTimeOut {
		t.Errorf("wait past its deadline: %v", err)
	}
	if n := queue.waitingCount(); n != 0 {
		t.Errorf("%d still queued", n)
	}

	exempt, _ := newQueueSet(0, true, queuing{})
	for range 100 {
		mustAdmit(t, exempt, 1)
	}
}

// TestHandler checks the filter: the X-Kubernetes-PF-* headers on every response, and 429
// with kube's Status and Retry-After when the catch-all level (all one seat, before any
// configuration is read) is busy; a request without a user (no authentication) exempt; a
// running watch holding no seat.
func TestHandler(t *testing.T) {
	t.Parallel()
	c, err := New(1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	entered, unblock, watching := make(chan struct{}), make(chan struct{}), make(chan struct{})
	h := c.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/block":
			close(entered)
			<-unblock
		case "/watch":
			watching <- struct{}{}
			<-unblock
		}
		w.WriteHeader(http.StatusOK)
	}))
	serveAs := func(u *request.User, path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		ctx := r.Context()
		if u != nil {
			ctx = request.WithUser(ctx, u)
		}
		verb := "get"
		if path == "/watch" {
			verb = "watch"
		}
		ctx = request.WithRequestInfo(ctx, &request.RequestInfo{Path: path, Verb: verb})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(ctx))
		return w
	}
	serve := func(path string) *httptest.ResponseRecorder {
		return serveAs(&request.User{Name: "alice", Groups: []string{"system:authenticated"}}, path)
	}
	// A watch takes the seat only until it starts: two run, and the seat is free after.
	var watches sync.WaitGroup
	for range 2 {
		watches.Add(1)
		go func() { defer watches.Done(); serve("/watch") }()
		select {
		case <-watching:
		case <-time.After(5 * time.Second):
			close(unblock)
			t.Fatal("a running watch holds the only seat")
		}
	}
	blocked := make(chan struct{})
	go func() { serve("/block"); close(blocked) }()
	<-entered
	w := serve("/other")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" ||
		!strings.Contains(w.Body.String(), `"message":"Too many requests, please try again later."`) ||
		!strings.Contains(w.Body.String(), `"reason":"TooManyRequests"`) {
		t.Errorf("busy: %d %v %s", w.Code, w.Header(), w.Body)
	}
	for _, k := range []string{HeaderFlowSchemaUID, HeaderPriorityLevelUID} {
		if len(w.Header().Values(k)) == 0 {
			t.Errorf("429 without %s: %v", k, w.Header())
		}
	}
	// A request without a user (no authentication: --plain-http) is exempt.
	if w := serveAs(nil, "/other"); w.Code != http.StatusOK {
		t.Errorf("a request without a user while the catch-all is busy: %d", w.Code)
	}
	close(unblock)
	<-blocked
	watches.Wait()
	if w := serve("/other"); w.Code != http.StatusOK {
		t.Errorf("after the seat freed: %d", w.Code)
	}
}

// TestWidth checks a list's seats (ceil(objects / 100) within [1, 10], one when the count is
// unknown or for other verbs) and that a request waits until its seats are all free, holding
// back those queued after it, as kube's.
func TestWidth(t *testing.T) {
	t.Parallel()
	c, err := New(10, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetObjectCounts(func(group, resource string) (int64, bool) {
		return map[string]int64{"configmaps": 250, "big": 5000}[resource], resource != "unknown"
	})
	for _, tc := range []struct {
		verb, group, resource string
		want                  int
	}{
		{"list", "", "configmaps", 3}, {"list", "db.example.com", "big", 10}, {"list", "", "unknown", 1},
		{"list", "", "empty", 1}, {"get", "", "configmaps", 1},
	} {
		info := &request.RequestInfo{IsResourceRequest: true, Verb: tc.verb, APIGroup: tc.group, Resource: tc.resource}
		if got := c.width(info); got != tc.want {
			t.Errorf("%s %s.%s: width %d, want %d", tc.verb, tc.resource, tc.group, got, tc.want)
		}
	}

	s, _ := newQueueSet(4, false, queuing{queues: 1, handSize: 1, queueLengthLimit: 10})
	one, err := s.admit(context.Background(), time.Minute, 1, 1, noQueued)
	if err != nil {
		t.Fatal(err)
	}
	wide := make(chan func())
	go func() {
		release, err := s.admit(context.Background(), time.Minute, 1, 4, noQueued)
		if err != nil {
			t.Error(err)
		}
		wide <- release
	}()
	for s.waitingCount() == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	// One seat of four is taken: the 4-wide request waits, and a 1-wide one behind it too.
	if _, err := s.admit(context.Background(), 10*time.Millisecond, 1, 1, noQueued); reason(err) != reasonTimeOut {
		t.Errorf("a request behind a waiting wide one: %v, want a time-out", err)
	}
	one()
	release := <-wide
	if s.executing != 4 {
		t.Errorf("the wide request holds %d seats, want 4", s.executing)
	}
	release()
	if s.executing != 0 {
		t.Errorf("%d seats held after every release", s.executing)
	}
}

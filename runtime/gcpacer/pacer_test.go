package gcpacer

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live, rate, headroom uint64
		want                 int
	}{
		// Busy: what 10s of allocations would add exceeds the headroom, which caps it.
		{live: 24 * mib, rate: 100 * mib, headroom: 96 * mib, want: 400},
		{live: 20 * mib, rate: 100 * mib, headroom: 96 * mib, want: 480},
		{live: 70 * mib, rate: 100 * mib, headroom: 96 * mib, want: 138},  // 137.14 rounded up
		{live: 96 * mib, rate: 100 * mib, headroom: 96 * mib, want: 100},  // the headroom meets GOGC=100
		{live: 500 * mib, rate: 900 * mib, headroom: 96 * mib, want: 100}, // a large heap: the default
		{live: 0, rate: 100 * mib, headroom: 96 * mib, want: 9600},        // no live heap yet: counted as 1 MiB
		// In between: 10s of allocations.
		{live: 20 * mib, rate: 3 * mib, headroom: 96 * mib, want: 150},
		{live: 500 * mib, rate: 10 * mib, headroom: 96 * mib, want: 20},
		// At rest: live/8, at least 4 MiB.
		{live: 20 * mib, rate: 0, headroom: 96 * mib, want: 20},
		{live: 20 * mib, rate: 100 << 10, headroom: 96 * mib, want: 20},
		{live: 800 * mib, rate: 0, headroom: 96 * mib, want: 13}, // 12.5 rounded up
		{live: 1000, rate: 0, headroom: 4 * mib, want: 400},      // 4 MiB over the 1 MiB floor
		{live: 3 * mib, rate: 0, headroom: 2 * mib, want: 100},   // the rest floor capped by max(live, headroom)
		// A rate that would overflow when multiplied.
		{live: 20 * mib, rate: math.MaxUint64, headroom: 96 * mib, want: 480},
	} {
		if got := Percent(tc.live, tc.rate, tc.headroom); got != tc.want {
			t.Errorf("Percent(%d MiB, %d B/s, %d MiB) = %d, want %d", tc.live/mib, tc.rate, tc.headroom/mib, got, tc.want)
		}
	}
}

func TestStartLeavesTheOperatorsSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			before := gcPercent()
			if Start(DefaultHeadroom) {
				t.Fatalf("Start took effect with %s set", env)
			}
			if got := gcPercent(); got != before {
				t.Errorf("GOGC changed from %d to %d with %s set", before, got, env)
			}
		})
	}
	if Start(0) {
		t.Error("Start took effect with a headroom of 0")
	}
}

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// startFast starts the pacer with a short tick and half-life, and stops it at the end of
// the test.
func startFast(t *testing.T, headroom uint64) {
	t.Helper()
	startFastWith(t, headroom, Start)
}

// startFastWith is startFast starting the pacer with start (Start or StartServer).
func startFastWith(t *testing.T, headroom uint64, start func(uint64) bool) {
	t.Helper()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	oldTick, oldHalfLife, oldRelease := tick, halfLife, minReleaseInterval
	// A pause of the test's allocations (a busy machine) may count as a rest: the next rest
	// must return the garbage too.
	tick, halfLife, minReleaseInterval = 10*time.Millisecond, 20*time.Millisecond, 0
	t.Cleanup(func() { tick, halfLife, minReleaseInterval = oldTick, oldHalfLife, oldRelease })
	if !start(headroom) {
		t.Fatal("the pacer did not start with neither GOGC nor GOMEMLIMIT set")
	}
	t.Cleanup(stop)
}

// waitFor collects garbage and waits (bounded) until ok holds for GOGC and the live heap;
// false when it never does.
func waitFor(ok func(percent int, live uint64) bool) (int, uint64, bool) {
	var percent int
	var live uint64
	for range 300 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups and ticks run on their own goroutines
		percent, live = gcPercent(), liveHeap()
		if ok(percent, live) {
			return percent, live, true
		}
	}
	return percent, live, false
}

// TestStartFollowsTheRateAndTheLiveHeap checks that under a steady stream of allocations
// GOGC is what the headroom over the live heap gives, that once the allocations stop it falls
// to the rest floor (live/8, at least 4 MiB: under 100), and that a grown live heap is
// followed.
func TestStartFollowsTheRateAndTheLiveHeap(t *testing.T) {
	const headroom = 64 << 20
	startFast(t, headroom)
	if Start(headroom) {
		t.Error("a second Start took effect; the pacer is the process's")
	}
	var keep [][]byte
	for round := range 2 {
		// Grow the live heap (16 MiB a round).
		for range 16 {
			keep = append(keep, make([]byte, 1<<20))
		}
		// Busy: 1 MiB of garbage every millisecond, far more than the headroom over 10s.
		done := make(chan struct{})
		go allocateBusily(done)
		got, live, ok := waitFor(func(p int, live uint64) bool { return p == Percent(live, math.MaxUint64, headroom) })
		close(done)
		if !ok {
			t.Fatalf("round %d, busy: GOGC %d with a live heap of %d bytes, want Percent with the headroom = %d", round, got, live, Percent(live, math.MaxUint64, headroom))
		}
		if got <= 100 {
			t.Errorf("round %d, busy: GOGC %d with a live heap of %d bytes under a headroom of %d: want more than 100", round, got, live, headroom)
		}
		// At rest: the rate decays, GOGC falls to the rest floor.
		got, live, ok = waitFor(func(p int, live uint64) bool { return p == Percent(live, 0, headroom) })
		if !ok {
			t.Fatalf("round %d, at rest: GOGC %d with a live heap of %d bytes, want the rest floor Percent = %d", round, got, live, Percent(live, 0, headroom))
		}
		if got >= 100 {
			t.Errorf("round %d, at rest: GOGC %d, want less than 100", round, got)
		}
	}
	runtime.KeepAlive(keep)
}

// memoryLimit reads the runtime's memory limit without changing it.
func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// TestSetMemoryLimit checks that the limit reaches the runtime, that it gives way to a live
// heap larger than it (no collection back to back), and that 0 removes it.
func TestSetMemoryLimit(t *testing.T) {
	startFast(t, DefaultHeadroom)
	SetMemoryLimit(3 << 30)
	if got := memoryLimit(); got != 3<<30 {
		t.Errorf("memory limit %d after SetMemoryLimit(3 GiB), want %d", got, 3<<30)
	}
	keep := make([][]byte, 0, 48)
	for range 48 {
		keep = append(keep, make([]byte, 1<<20))
	}
	SetMemoryLimit(16 << 20) // far under the live heap
	got, live, ok := waitFor(func(_ int, live uint64) bool { return memoryLimit() >= int64(live+live/thrashDivisor) })
	if !ok {
		t.Errorf("memory limit %d with a live heap of %d bytes under SetMemoryLimit(16 MiB): want at least live + live/%d", memoryLimit(), live, thrashDivisor)
	}
	_ = got
	runtime.KeepAlive(keep)
	SetMemoryLimit(0)
	if got := memoryLimit(); got != math.MaxInt64 {
		t.Errorf("memory limit %d after SetMemoryLimit(0), want none (%d)", got, int64(math.MaxInt64))
	}
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: objectsMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestRestReturnsTheGarbage: when allocations stop with much garbage in the heap, the pacer
// collects it and returns it within a few ticks, without waiting for the next collection
// (which an idle process would not start for minutes).
func TestRestReturnsTheGarbage(t *testing.T) {
	const headroom = 512 << 20
	startFast(t, headroom)
	for attempt := 0; ; attempt++ {
		var sink []byte
		for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); {
			sink = make([]byte, 4<<20)
		}
		runtime.KeepAlive(sink)
		live, objects := liveHeap(), heapObjects()
		if objects < live+uint64(Percent(live, 0, headroom))*live/100+2*restSlack {
			if attempt == 5 {
				t.Skipf("a collection ran just before each burst ended: %d bytes of objects over %d live", objects, live)
			}
			continue // a collection ran just before the burst ended: too little garbage to tell
		}
		for range 200 {
			if heapObjects() < live+restSlack {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%d bytes of heap objects over a live heap of %d bytes 2s after the allocations stopped, want under live + %d", heapObjects(), live, restSlack)
	}
}

// held keeps TestSettledRestReturnsLaterGarbage's chunks live until it drops them.
var held [][]byte

// TestSettledRestReturnsLaterGarbage: memory freed after the server came to rest (as the
// watch cache's cooler and encoding cache free theirs, seconds after the load) is collected
// and returned settleAfter into the rest, although nothing allocates to start a collection.
func TestSettledRestReturnsLaterGarbage(t *testing.T) {
	old := settleAfter
	settleAfter = 300 * time.Millisecond
	t.Cleanup(func() { settleAfter = old })
	const headroom = 512 << 20
	startFast(t, headroom)
	for range 32 {
		held = append(held, make([]byte, 2<<20))
	}
	withHeld := func() bool { return heapObjects() < liveHeap()+restSlack && liveHeap() > 64<<20 }
	for deadline := time.Now().Add(5 * time.Second); !withHeld(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pacer did not come to rest holding the 64 MiB: %d bytes of objects, %d live", heapObjects(), liveHeap())
		}
	}
	before := heapObjects()
	held = nil // garbage from now on, with nothing allocating
	for deadline := time.Now().Add(3 * time.Second); heapObjects() > before-48<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of heap objects 3s after 64 MiB held at rest became garbage (%d before); want the garbage collected",
				heapObjects(), before)
		}
	}
}

// TestStartServerHoldsStartupPercentUntilStarted checks that a server's pacer keeps GOGC at
// StartupPercent while the server starts, busy (a rate far above the headroom's) or not,
// and paces from Started on: at rest, the rest floor.
func TestStartServerHoldsStartupPercentUntilStarted(t *testing.T) {
	const headroom = 64 << 20
	startFastWith(t, headroom, StartServer)
	done := make(chan struct{})
	go allocateBusily(done)
	for range 20 { // 20 collections and ticks while busy
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if got := gcPercent(); got != StartupPercent {
			close(done)
			t.Fatalf("starting, busy: GOGC %d, want StartupPercent %d", got, StartupPercent)
		}
	}
	close(done)
	for range 20 { // and at rest
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if got := gcPercent(); got != StartupPercent {
			t.Fatalf("starting, at rest: GOGC %d, want StartupPercent %d", got, StartupPercent)
		}
	}
	Started()
	got, live, ok := waitFor(func(p int, live uint64) bool { return p == Percent(live, 0, headroom) })
	if !ok {
		t.Fatalf("started, at rest: GOGC %d with a live heap of %d bytes, want the rest floor Percent = %d", got, live, Percent(live, 0, headroom))
	}
}

// allocateBusily makes 1 MiB of garbage every millisecond until done is closed: a server far
// busier than any headroom allows for 10s.
func allocateBusily(done <-chan struct{}) {
	var sink []byte
	for {
		select {
		case <-done:
			runtime.KeepAlive(sink)
			return
		default:
		}
		sink = make([]byte, 1<<20)
		time.Sleep(time.Millisecond)
	}
}

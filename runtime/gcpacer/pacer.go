package gcpacer

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultHeadroom is the heap growth, in bytes, a server allows before a collection: 64 MiB.
// With the example server's live heap (about 20 MiB under a write load, 50 MiB under 64
// concurrent paged lists) it collects about three times less often than GOGC=100 under
// writes and keeps the process near 150 MiB of RSS, near 210 MiB under the lists (make
// bench; its target is 300 MB).
const DefaultHeadroom = 64 << 20

// liveHeapMetric is the heap the last collection marked live, in bytes.
const liveHeapMetric = "/gc/heap/live:bytes"

// Percent returns the GOGC value that puts the heap goal at live + max(live, headroom):
// 100 when live (bytes) is at least headroom (bytes), else 100*headroom/live, rounded up.
// A live heap of 0 counts as 1 MiB, so the result is bounded (100*headroom/1 MiB).
func Percent(live, headroom uint64) int {
	live = max(live, 1<<20)
	if live >= headroom {
		return 100
	}
	return int((100*headroom + live - 1) / live)
}

// running is the process's pacer, nil until Start: the garbage collector is the process's.
var (
	mu      sync.Mutex
	running *pacer
)

// Start keeps GOGC at Percent(live heap, headroom) from now on: it sets it now and again
// after every garbage collection (debug.SetGCPercent), as the package doc describes. It
// returns false, and changes nothing, when the GOGC or GOMEMLIMIT environment variable is
// set (the operator chose), when headroom is 0, or when Start has already taken effect in
// this process.
func Start(headroom uint64) bool {
	if headroom == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	if running != nil {
		return false
	}
	running = &pacer{headroom: headroom, sample: []metrics.Sample{{Name: liveHeapMetric}}}
	running.adjust()
	running.arm()
	return true
}

// stop ends the running pacer (its next cleanup does nothing and does not arm again) and
// puts GOGC back to 100, so a test can Start again.
func stop() {
	mu.Lock()
	defer mu.Unlock()
	if running != nil {
		running.stopped = true
		running = nil
		debug.SetGCPercent(100)
	}
}

// pacer adjusts GOGC after each collection. Its fields are guarded by mu.
type pacer struct {
	headroom uint64
	sample   []metrics.Sample
	percent  int  // the GOGC last set
	stopped  bool // set by stop: no more adjusting
}

// sentinel is an object that lives until the next collection; its cleanup is how the
// pacer learns that one happened. It has a pointer so it is not a tiny allocation (whose
// cleanups may never run).
type sentinel struct{ _ *byte }

// arm makes the next collection call adjust, then arm again.
func (p *pacer) arm() {
	runtime.AddCleanup(new(sentinel), func(p *pacer) {
		mu.Lock()
		defer mu.Unlock()
		if !p.stopped {
			p.adjust()
			p.arm()
		}
	}, p)
}

// adjust sets GOGC for the live heap the last collection found. mu must be held.
func (p *pacer) adjust() {
	metrics.Read(p.sample)
	if p.sample[0].Value.Kind() != metrics.KindUint64 { // a runtime without the metric
		return
	}
	if percent := Percent(p.sample[0].Value.Uint64(), p.headroom); percent != p.percent {
		debug.SetGCPercent(percent)
		p.percent = percent
	}
}

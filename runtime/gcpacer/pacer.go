package gcpacer

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// DefaultHeadroom is the most heap growth, in bytes, a busy server allows past a small live
// heap before a collection: 64 MiB. With the example server's live heap (about 20 MiB under a
// write load, 50 MiB under 64 concurrent paged lists) it collects about three times less
// often than GOGC=100 under writes and keeps the process near 150 MiB of RSS, near 210 MiB
// under the lists (make bench; its target is 300 MB).
const DefaultHeadroom = 64 << 20

// TargetInterval is how long a server allocating at a steady rate goes between collections
// when that growth is between the rest floor and the headroom (see Percent): the heap may
// grow by what the server allocates in TargetInterval.
const TargetInterval = 10 * time.Second

// restDivisor and minGrowth set the heap growth allowed at rest: live/restDivisor, at least
// minGrowth (GOGC=12.5 for a large live heap; Go's own minimum heap is 4 MiB).
const (
	restDivisor = 8
	minGrowth   = 4 << 20
)

// thrashDivisor keeps the effective memory limit at least live/thrashDivisor above the
// memory the runtime cannot give back (see SetMemoryLimit): a live heap that outgrows the
// limit makes the collector run at most about four times as often as GOGC=100 would,
// instead of back to back.
const thrashDivisor = 4

// The runtime metrics the pacer reads, in this order: the heap the last collection marked
// live, the bytes allocated since the process started, and the runtime's memory classes that
// the memory limit counts (SetMemoryLimit).
const (
	liveHeapMetric  = "/gc/heap/live:bytes"
	allocsMetric    = "/gc/heap/allocs:bytes"
	totalMetric     = "/memory/classes/total:bytes"
	releasedMetric  = "/memory/classes/heap/released:bytes"
	freeMetric      = "/memory/classes/heap/free:bytes"
	objectsMetric   = "/memory/classes/heap/objects:bytes"
	unusedMetric    = "/memory/classes/heap/unused:bytes"
	minRateInterval = 50 * time.Millisecond // shorter samples do not update the rate
)

// tick is how often the pacer samples the allocation rate between collections, and
// halfLife how fast the rate it estimates decays once the server allocates less (halving
// every halfLife); tests shorten both.
var (
	tick     = time.Second / 2
	halfLife = time.Second / 4
)

// restSlack is how far past the rest goal (live + the rest floor) the heap must be, in
// bytes, when the server comes to rest for the pacer to return the garbage at once
// (debug.FreeOSMemory) rather than at the next collection and the scavenger's pace.
const restSlack = 16 << 20

// settleAfter is how long a server must have rested, with no collection for as long, for
// the pacer to collect and return the heap once more in that rest: what the server's own
// timers free after the load is over (the watch cache makes the objects read during it cold
// 5-10 s later, and drops the encodings not read for 10-20 s) is garbage that no
// collection finds while the server allocates nothing, as the first return, on coming to
// rest, came before it was garbage. Tests shorten it.
var settleAfter = 30 * time.Second

// minReleaseInterval is the least time between two such returns: a load that comes and goes
// every few seconds pays for one forced collection (marking the live heap: tens of
// milliseconds of CPU per 100 MiB) and the page faults of reusing the returned pages per
// interval at most. Tests shorten it.
var minReleaseInterval = 5 * time.Second

// Percent returns the GOGC value that puts the heap goal at live + growth, where growth is
// what the server allocates in TargetInterval at rate (bytes per second), but at least the
// rest floor, max(live/8, 4 MiB), and at most max(live, headroom): live and headroom are
// bytes, and the result is 100*growth/live rounded up. So an idle server keeps little
// garbage (GOGC 12.5 for a large live heap), a busy one with a small live heap waits for
// headroom of growth, and a busy one whose live heap is larger than headroom collects as
// GOGC=100 does. A live heap of 0 counts as 1 MiB, so the result is bounded.
func Percent(live, rate, headroom uint64) int {
	live = max(live, 1<<20)
	most := max(live, headroom)
	growth := most
	if seconds := uint64(TargetInterval / time.Second); rate < most/seconds {
		growth = rate * seconds
	}
	growth = min(max(growth, live/restDivisor, minGrowth), most)
	return int((100*growth + live - 1) / live)
}

// running is the process's pacer, nil until Start: the garbage collector is the process's.
var (
	mu      sync.Mutex
	running *pacer
)

// Start keeps GOGC at Percent(live heap, allocation rate, headroom) from now on: it sets it
// now, again after every garbage collection and twice a second (debug.SetGCPercent), as the
// package doc describes. It returns false, and changes nothing, when the GOGC or GOMEMLIMIT
// environment variable is set (the operator chose), when headroom is 0, or when Start has
// already taken effect in this process.
func Start(headroom uint64) bool {
	return start(headroom, false)
}

// StartupPercent is GOGC while a server started with StartServer starts (until Started):
// a quarter of Go's default. Start-up allocates a few times the heap the server keeps (38 MB
// for the example server's 15 MB), the garbage mixed in with what stays: collected as it
// goes, it leaves the kept objects packed in fewer pages than collected once at the end, as
// the headroom would have it (the example server's heap in use at rest: 15.5 MB instead of
// 21 MB; 16.5 MB at 100; on an external etcd, 11.4-12.6 MB at 50 and 10.4-11.9 MB at 25).
// It trades CPU for memory while the server starts: a few more collections, about 15 ms more
// CPU at 50 than at 100 and 35 ms more at 25 than at 50 (130-160 ms of CPU to serving at 50,
// 170-200 ms at 25, on an external etcd); at 10 the anonymous memory falls by another
// 0.5 MB for twice the collections' CPU.
const StartupPercent = 25

// StartServer is Start for a server's process, which calls Started once it serves: until
// then GOGC stays StartupPercent (the memory limit is paced as ever), and the pacer does not
// return the garbage itself (Started does).
func StartServer(headroom uint64) bool {
	return start(headroom, true)
}

// Started tells the pacer that the server has started: it collects the start-up's garbage
// and returns it to the OS (debug.FreeOSMemory), and from then on paces GOGC as the package
// doc says. Without a pacer held by StartServer it collects and returns all the same.
func Started() {
	mu.Lock()
	if running != nil && running.starting {
		running.starting = false
		running.adjust(time.Now())
	}
	mu.Unlock()
	debug.FreeOSMemory()
}

// start is Start, holding GOGC at StartupPercent until Started when starting.
func start(headroom uint64, starting bool) bool {
	if headroom == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	if running != nil {
		return false
	}
	p := &pacer{headroom: headroom, done: make(chan struct{}), sample: []metrics.Sample{
		{Name: liveHeapMetric}, {Name: allocsMetric}, {Name: totalMetric}, {Name: releasedMetric},
		{Name: freeMetric}, {Name: objectsMetric}, {Name: unusedMetric}}}
	running = p
	// Start is called at start-up: busy (the rate the headroom needs) until the first
	// samples say otherwise, and the server's main returns the start-up's garbage itself.
	p.rate, p.rested, p.starting = float64(headroom), true, starting
	p.adjust(time.Now())
	p.arm()
	go p.sampleEvery(tick)
	return true
}

// SetMemoryLimit sets the process's soft memory limit to limit bytes (debug.SetMemoryLimit;
// what the GOMEMLIMIT environment variable sets, which it overrides); 0 or less removes it.
// Under the pacer (Start) the limit gives way to a live heap that outgrows it: the runtime's
// limit is kept at max(limit, what it cannot give back + live/4), so the collector bounds the
// heap's growth at limit without thrashing; the pacer keeps it so until the process ends.
// Without the pacer the runtime's limit is limit itself.
func SetMemoryLimit(limit int64) {
	if limit <= 0 {
		limit = 0
	}
	mu.Lock()
	defer mu.Unlock()
	if running != nil {
		running.limit = limit
		running.adjust(time.Now())
		return
	}
	if limit == 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	debug.SetMemoryLimit(limit)
}

// stop ends the running pacer (its next cleanup and tick do nothing and do not arm again)
// and puts GOGC back to 100 and the memory limit off, so a test can Start again.
func stop() {
	mu.Lock()
	defer mu.Unlock()
	if running != nil {
		running.stopped = true
		close(running.done)
		running = nil
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// pacer adjusts GOGC, and the memory limit, after each collection and each tick. Its fields
// are guarded by mu.
type pacer struct {
	headroom uint64
	limit    int64 // SetMemoryLimit's; 0 for none
	sample   []metrics.Sample
	percent  int   // the GOGC last set
	setLimit int64 // the runtime memory limit last set; 0 for none set
	// allocs and at are the allocation counter and the time of the last rate sample; rate
	// the estimated allocation rate in bytes per second: the last sample's, or the previous
	// estimate halved every halfLife when that is higher, so a burst's end lowers it within
	// seconds and a pause between requests does not.
	allocs uint64
	at     time.Time
	rate   float64
	done   chan struct{} // closed by stop
	// rested is set when adjust found the server at rest, cleared when it finds it busy: the
	// garbage is returned once per rest.
	rested bool
	// releasedAt is when adjust last asked for the heap to be returned.
	releasedAt time.Time
	// restingSince is when the current rest began (zero while busy); settled is set once the
	// heap was returned a second time in it (settles); collectedAt is when the last
	// collection ended (as its sentinel's cleanup tells).
	restingSince time.Time
	settled      bool
	collectedAt  time.Time
	// stopped is set by stop: no more adjusting.
	stopped bool
	// starting is set by StartServer until Started: GOGC stays StartupPercent.
	starting bool
	// valid says whether adjust's last sample had every metric.
	valid bool
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
			p.collectedAt = time.Now()
			p.adjust(p.collectedAt)
			p.arm()
		}
	}, p)
}

// sampleEvery calls adjust every interval until stop.
func (p *pacer) sampleEvery(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case now := <-t.C:
			mu.Lock()
			release := false
			if !p.stopped {
				p.adjust(now)
				release = p.cameToRest(now) || p.settles(now)
			}
			mu.Unlock()
			if release {
				debug.FreeOSMemory()
			}
		}
	}
}

// adjust updates the allocation rate, then sets GOGC for the live heap the last collection
// found and that rate, and the memory limit (SetMemoryLimit). mu must be held.
func (p *pacer) adjust(now time.Time) {
	metrics.Read(p.sample)
	p.valid = true
	for _, s := range p.sample {
		if s.Value.Kind() != metrics.KindUint64 { // a runtime without the metric
			p.valid = false
			return
		}
	}
	live, allocs := p.sample[0].Value.Uint64(), p.sample[1].Value.Uint64()
	if p.at.IsZero() {
		p.allocs, p.at = allocs, now
	} else if dt := now.Sub(p.at); dt >= minRateInterval {
		current := float64(allocs-p.allocs) / dt.Seconds()
		decayed := p.rate * math.Pow(0.5, dt.Seconds()/halfLife.Seconds())
		p.rate = max(current, decayed)
		p.allocs, p.at = allocs, now
	}
	percent := Percent(live, uint64(p.rate), p.headroom)
	if p.starting {
		percent = StartupPercent
	}
	if percent != p.percent {
		debug.SetGCPercent(percent)
		p.percent = percent
	}
	p.adjustLimit(live)
}

// cameToRest returns true when the server has just come to rest (GOGC, which adjust has just
// set, is the rest floor's, for the first time since it was higher) holding more than
// restSlack of heap pages past the rest goal (garbage, or free pages the scavenger has not
// returned yet): the caller then collects and returns them to the OS, without mu. mu must be
// held.
func (p *pacer) cameToRest(now time.Time) bool {
	if !p.valid {
		return false
	}
	live := p.sample[0].Value.Uint64()
	percent := p.percent
	if percent != Percent(live, 0, p.headroom) {
		p.rested, p.settled, p.restingSince = false, false, time.Time{}
		return false
	}
	if p.restingSince.IsZero() {
		p.restingSince = now
	}
	if p.rested || now.Sub(p.releasedAt) < minReleaseInterval {
		return false // returned for this rest, or too soon after the last return: a later tick
	}
	p.rested = true
	// The heap's pages the runtime holds: objects (live, and dead not yet swept), the free
	// space in their spans, and free spans not yet returned to the OS.
	free, objects, unused := p.sample[4].Value.Uint64(), p.sample[5].Value.Uint64(), p.sample[6].Value.Uint64()
	goal := max(live, 1<<20) * uint64(100+percent) / 100
	if free+objects+unused <= goal+restSlack {
		return false
	}
	p.releasedAt = now
	return true
}

// settles returns true, once per rest, when the server has rested for settleAfter and no
// collection has run for as long: the caller then collects and returns the heap to the OS,
// without mu. mu must be held.
func (p *pacer) settles(now time.Time) bool {
	if p.restingSince.IsZero() || p.settled || now.Sub(p.restingSince) < settleAfter || now.Sub(p.collectedAt) < settleAfter {
		return false
	}
	p.settled = true
	p.releasedAt = now
	return true
}

// adjustLimit sets the runtime's memory limit to max(p.limit, what the runtime cannot give
// back + live/thrashDivisor), or removes it when p.limit is 0. What it cannot give back is
// the runtime's mapped memory but the heap's released and free pages and its objects, plus
// the live heap. mu must be held and p.sample fresh.
func (p *pacer) adjustLimit(live uint64) {
	want := int64(0)
	if p.limit > 0 {
		total, released := p.sample[2].Value.Uint64(), p.sample[3].Value.Uint64()
		free, objects := p.sample[4].Value.Uint64(), p.sample[5].Value.Uint64()
		held := total - min(total, released+free+objects) + live
		want = max(p.limit, int64(held+live/thrashDivisor))
	}
	if want == p.setLimit {
		return
	}
	p.setLimit = want
	if want == 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	debug.SetMemoryLimit(want)
}

package cacher

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/s2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// body is what an entry holds of its object: the decoded object (hot), or only its JSON
// compressed (cold), or both (an object read again since it was first made cold keeps its
// cold bytes, so that it goes cold again without being encoded again). A body is never
// modified: an entry changes state by swapping its body.
type body struct {
	// obj is the decoded object; nil when the entry is cold.
	obj runtime.Object
	// cold is obj's JSON (the generated codec's) compressed with its freezer's dictionary;
	// nil until the cooler first made the entry cold.
	cold []byte
	// hot says the object cannot go cold: it has no generated codec, or its JSON does not
	// decode to an object equal to it.
	hot bool
}

// object returns e's object (the accessor of every read of it): a cold entry's is decoded
// (thawed) and kept decoded again; the read marks e referenced, so the cooler's next pass
// leaves it decoded. The object is shared with the cache and its readers: callers copy
// before changing it.
func (e *entry) object() runtime.Object {
	if !e.referenced.Load() {
		e.referenced.Store(true) // store only when needed: readers of a hot entry share its cache line
	}
	b := e.body.Load()
	if b.obj != nil {
		return b.obj
	}
	obj := e.freezer.thaw(b.cold)
	for !e.body.CompareAndSwap(b, &body{obj: obj, cold: b.cold}) {
		if b = e.body.Load(); b.obj != nil {
			return b.obj // another reader thawed it first: every reader gets one object
		}
	}
	return obj
}

// sent returns e's object for a watch event (event.object, event.previous). Sending a
// change is not a read of it: a decoded entry's object is returned unmarked, so a new object
// sent to watchers still goes cold at the young pass. A cold entry's is decoded and kept, as
// object does, so that the watchers of an event replayed from the history share one decode.
func (e *entry) sent() runtime.Object {
	if b := e.body.Load(); b.obj != nil {
		return b.obj
	}
	return e.object()
}

// listed returns e's object for a list or a watch's initial events: a decoded entry's,
// marked as object marks it. A cold entry's object is decoded for the caller only the first
// time one of them reads it since the cooler's last pass, which marks it; read again before
// the next pass, it is decoded and kept (object). So a one-off read of many cold objects (a
// client's informer starting, kubectl get -A) holds each page of them only while it is
// written, not the whole set until the cooler's passes go by, and objects listed over and
// over are kept decoded from their second listing on.
func (e *entry) listed() runtime.Object {
	if b := e.body.Load(); b.obj == nil && !e.referenced.Swap(true) {
		return e.freezer.thaw(b.cold) // its first read since the last pass: for this reader only
	}
	return e.object()
}

// peek returns e's object, as object does, without counting as a read: a cold entry's object
// is decoded for the caller only, and e stays cold. For what the cache itself looks at (a
// field index being built, the cooler's dictionary).
func (e *entry) peek() runtime.Object {
	b := e.body.Load()
	if b.obj != nil {
		return b.obj
	}
	return e.freezer.thaw(b.cold)
}

// isCold reports whether e holds only its object's compressed JSON.
func (e *entry) isCold() bool { return e.body.Load().obj == nil }

// freeze makes e cold, unless it was read since the last pass (it then only clears the mark)
// or cannot be; it reports whether e went cold now. Called by the cooler only.
func (e *entry) freeze() bool {
	if e.referenced.Load() {
		e.referenced.Store(false)
		return false
	}
	b := e.body.Load()
	if b.obj == nil || b.hot {
		return false
	}
	cold := b.cold
	if cold == nil {
		var ok bool
		if cold, ok = e.freezer.freeze(b.obj); !ok {
			e.body.CompareAndSwap(b, &body{obj: b.obj, hot: true})
			return false
		}
	}
	// A reader that loaded b keeps using b.obj; the next read thaws the cold bytes.
	return e.body.CompareAndSwap(b, &body{cold: cold})
}

// freezer encodes a cache's objects into their cold form and decodes them back: the JSON of
// the type's generated codec (jsoncodec), compressed with S2 against a dictionary made of
// the JSON of the cache's first objects when its cooler first ran (the objects of one
// resource share most of their keys, and often their values: with it example-api's ~1.2 KB
// benchmark Database compresses to about 60 bytes, without it to about 470, and zstd with
// the same dictionary to about 66 in 20 times the time). Safe for concurrent use.
type freezer struct {
	newFunc  func() runtime.Object
	interned *interner
	// dict is set once, before the first freeze, and never changed: every cold body of the
	// cache is compressed against it.
	dict     atomic.Pointer[s2.Dict]
	dictOnce sync.Once
	// unequal counts the objects whose JSON did not read back equal (they stay decoded);
	// reported reports the first, once.
	unequal  atomic.Int64
	reported sync.Once
}

// Dictionary sizing: the JSON of the first objects frozen, up to dictBytes in all, at most
// dictObjects of them.
const (
	dictBytes   = 8 << 10
	dictObjects = 8
)

// newFreezer returns the freezer of the objects newFunc makes, or nil when their type has
// no generated JSON codec (its objects are kept decoded).
func newFreezer(newFunc func() runtime.Object, interned *interner) *freezer {
	if !jsoncodec.Registered(newFunc()) {
		return nil
	}
	return &freezer{newFunc: newFunc, interned: interned}
}

// coldBuffers recycles the buffers objects are encoded into and decompressed into.
var coldBuffers = sync.Pool{New: func() any { return new([]byte) }}

// putBuffer returns a buffer to coldBuffers unless it grew past 64 KiB.
func putBuffer(bp *[]byte, data []byte) {
	if cap(data) <= 64<<10 {
		*bp = data[:0]
	}
	coldBuffers.Put(bp)
}

// makeDict sets the dictionary from the objects samples yields (see dictBytes), once.
func (f *freezer) makeDict(samples func(yield func(runtime.Object) bool)) {
	f.dictOnce.Do(func() {
		var data []byte
		n := 0
		samples(func(obj runtime.Object) bool {
			if out, ok := jsoncodec.Marshal(data, obj); ok {
				data, n = out, n+1
			}
			return len(data) < dictBytes && n < dictObjects
		})
		if len(data) > dictBytes {
			data = data[len(data)-dictBytes:]
		}
		start := data
		if len(start) > 16 {
			start = start[:16] // a document's typical beginning
		}
		if d := s2.MakeDict(data, start); d != nil {
			f.dict.Store(d)
		} else {
			f.dict.Store(s2.MakeDict([]byte(`{"kind":"","apiVersion":"","metadata":{"name":""}}`), nil))
		}
	})
}

// freeze returns obj's cold form. ok is false when obj has no generated codec or its JSON
// does not decode to an object equal to it (reflect.DeepEqual): then it stays decoded. The
// dictionary must be set (makeDict).
func (f *freezer) freeze(obj runtime.Object) (cold []byte, ok bool) {
	bp := coldBuffers.Get().(*[]byte)
	data, ok := jsoncodec.Marshal((*bp)[:0], obj)
	defer putBuffer(bp, data)
	if !ok {
		return nil, false
	}
	back := f.newFunc() // compared and dropped while data is still ours: its strings may be data's
	if !jsoncodec.UnmarshalTransient(data, back) || !reflect.DeepEqual(back, obj) {
		f.unequal.Add(1)
		return nil, false
	}
	ep := coldBuffers.Get().(*[]byte)
	enc := f.dict.Load().Encode((*ep)[:cap(*ep)], data)
	defer putBuffer(ep, enc)
	return append(make([]byte, 0, len(enc)), enc...), true // exactly its size: it is kept
}

// thaw decodes a cold form freeze made, its metadata values interned as the reflector
// interns what it reads. freeze checked that the decode succeeds and gives an object equal
// to the one frozen; a decode failing now is a bug of the cache, and panics.
func (f *freezer) thaw(cold []byte) runtime.Object {
	bp := coldBuffers.Get().(*[]byte)
	data, err := f.dict.Load().Decode((*bp)[:cap(*bp)], cold)
	if err != nil {
		panic(fmt.Sprintf("watch cache: cannot decompress a cold object: %v", err))
	}
	defer putBuffer(bp, data)
	obj := f.newFunc()
	if !jsoncodec.Unmarshal(data, obj) {
		panic(fmt.Sprintf("watch cache: cannot decode a cold %T", obj))
	}
	f.interned.intern(obj)
	return obj
}

// DefaultCoolInterval is how often a cache's cooler makes cold the objects not read since
// its previous pass, when Config.CoolInterval is 0.
const DefaultCoolInterval = 5 * time.Second

// The cooler's pace: after each coolBatch objects made cold, a pass pauses coolPause times
// as long as they took, so it takes at most a quarter of a CPU (making an object cold costs
// about 25 µs for example-api's Database: encode, decode and compare, compress), and the
// first pass over an aged cache (500,000 objects: about 12 s of CPU) does not take a CPU
// from the requests for its whole length.
const (
	coolBatch = 64
	coolPause = 3
)

// youngPasses is how many young passes the cooler makes per cooling interval: one every
// tenth of it (500ms by default), a full pass (coolPass) in place of every tenth.
const youngPasses = 10

// youngEntries are the entries of the objects new to the cache (ADDED) since the cooler's
// last young pass, in the order the reflector cached them.
type youngEntries struct {
	mu      sync.Mutex
	entries []*entry
	// interval is the time between young passes (0: no cooler runs), set before the
	// reflector starts; passed is when the last pass began, the cooler's own.
	interval time.Duration
	passed   time.Time
}

// addYoung registers e, the entry of an object new to the cache, for the cooler's next
// young pass; nothing when no cooler runs (no young pass would take it). Called by the
// reflector only.
func (c *Cacher) addYoung(e *entry) {
	if !c.hasCooler() {
		return
	}
	c.young.mu.Lock()
	c.young.entries = append(c.young.entries, e)
	c.young.mu.Unlock()
}

// youngPass makes cold each object new to the cache since the previous young pass that is
// still the current object at its key and was not read since it was cached; a read one is
// left decoded, and its mark cleared, as a full pass does. It returns how many went cold.
//
// Without it a new object would stay decoded until a full pass looked at it, up to a whole
// cooling interval (5 s): a server creating 10,000 objects a second then holds 50,000
// decoded objects (about 4.5 KB each for example-api's Database, against about 100 bytes
// cold), and its heap, and the collector's work marking it, grow with its write rate. The
// pass is not paced: its work is a fixed share of each create (making the object cold once,
// which a full pass would have done later), so it keeps up with the reflector.
func (c *Cacher) youngPass() int {
	c.young.mu.Lock()
	young := c.young.entries
	c.young.entries = nil
	c.young.mu.Unlock()
	c.young.passed = time.Now()
	if len(young) == 0 {
		return 0
	}
	c.state.mu.RLock()
	t := c.state.current
	c.state.mu.RUnlock()
	return c.freezeAll(young, func(e *entry) bool {
		cur, ok := t.Get(e)
		return ok && cur == e // not changed or deleted since: its entry is still read
	})
}

// freezeAll makes cold each of entries that eligible accepts (nil: every one) and that was
// not read since it was cached or last looked at (entry.freeze), after setting the freezer's
// dictionary from them if no pass has set it yet. It stops when the cache stops, and
// returns how many went cold. The young pass and a list's pages (freezeListed) use it; a
// full pass walks a tree instead, paced.
func (c *Cacher) freezeAll(entries []*entry, eligible func(*entry) bool) int {
	c.freezer.makeDict(func(yield func(runtime.Object) bool) {
		for _, e := range entries {
			if !yield(e.peek()) {
				return
			}
		}
	})
	frozen := 0
	for _, e := range entries {
		if c.ctx.Err() != nil {
			break
		}
		if (eligible == nil || eligible(e)) && e.freeze() {
			frozen++
		}
	}
	return frozen
}

// hasCooler reports whether the cache's cooler runs: its objects have a generated codec and
// Config.CoolInterval is positive (New sets the young passes' interval then).
func (c *Cacher) hasCooler() bool { return c.young.interval > 0 }

// cool starts the cooler: a young pass (youngPass) every c.young.interval, and a full
// cooling pass (coolPass) in place of every youngPasses-th, until Stop, then c.cooled closed
// (after the pass under way, if any). It runs on a timer (time.AfterFunc) rather than on a
// goroutine of its own waiting for a ticker: a server has a cache per resource, whose
// coolers held 21 goroutines at rest in the example server.
func (c *Cacher) cool() {
	// mu makes the pass's rearming and Stop's disarming one or the other: a pass that
	// rearmed is stopped by Stop, which closes c.cooled; one that did not closes it itself.
	var mu sync.Mutex
	var t *time.Timer
	tick := c.young.interval
	ticks := 0
	mu.Lock()
	defer mu.Unlock()
	t = time.AfterFunc(tick, func() {
		if c.ctx.Err() == nil {
			if ticks++; ticks%youngPasses == 0 {
				c.coolPass()
			} else {
				c.youngPass()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if c.ctx.Err() != nil {
			close(c.cooled)
			return
		}
		t.Reset(tick)
	})
	context.AfterFunc(c.ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Stop() { // armed, no pass under way
			close(c.cooled)
		}
	})
}

// coolPass is one pass of the cooler, a CLOCK sweep over the cache's current objects: an
// entry read since the previous pass (entry.object marks it) is left decoded and unmarked;
// one that was not is made cold. It returns how many entries went cold. Snapshots and the
// history's events share the entries, so an entry frozen here is cold in every snapshot and
// event holding it. Passes do not overlap.
func (c *Cacher) coolPass() int {
	c.coolMu.Lock()
	defer c.coolMu.Unlock()
	c.state.mu.RLock()
	t := c.state.current
	c.state.mu.RUnlock()
	if c.freezer == nil || t.Len() == 0 {
		return 0
	}
	c.freezer.makeDict(func(yield func(runtime.Object) bool) {
		t.Ascend(func(e *entry) bool { return yield(e.peek()) })
	})
	frozen, batch := 0, time.Now()
	t.Ascend(func(e *entry) bool {
		if e.freeze() {
			if frozen++; frozen%coolBatch == 0 {
				c.sleep(coolPause * time.Since(batch))
				if c.hasCooler() && time.Since(c.young.passed) >= c.young.interval {
					c.youngPass() // a long paced pass does not hold back the young ones
				}
				batch = time.Now()
			}
		}
		return c.ctx.Err() == nil
	})
	if c.freezer.unequal.Load() > 0 {
		c.freezer.reported.Do(func() {
			c.log.Info("watch cache keeps objects decoded: their JSON does not decode to an equal object",
				"type", fmt.Sprintf("%T", c.newFunc()))
		})
	}
	return frozen
}

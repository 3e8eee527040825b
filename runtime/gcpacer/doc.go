// Package gcpacer sets how often an API server's garbage collector runs: after the heap has
// grown by what the server allocates in TargetInterval (10s), at least by a rest floor
// (live/8, at least 4 MiB) and at most by max(live heap, headroom) (DefaultHeadroom, 64 MiB):
// so a busy server with a small live heap waits for the headroom, one whose live heap is
// larger than the headroom collects as GOGC=100 does (when the heap has doubled), and an idle
// one keeps little garbage, so its resident memory at rest is near its live heap.
//
// The Go runtime's default (GOGC=100) collects whenever the heap has doubled since the last
// collection. An API server's live heap is small (tens of MiB: caches, connections) while it
// allocates a few tens of KiB per request, so at thousands of requests per second it
// collects several times a second and spends a tenth of its CPU marking the same live heap
// (11-12% in the example server's update benchmark).
// A floor under the heap goal is what the Go proposals for a minimum heap size asked for
// (golang/go#23044, #44309) and what "GC ballast" emulated; GOMEMLIMIT (a ceiling) does not
// give it. With the headroom, a busy server collects a few times less often at a cost in
// memory bounded by the headroom. The pacer estimates the allocation rate twice a second and
// after each collection (its estimate halves every 250ms once allocations slow down), so
// within a few seconds of the load ending GOGC falls to the rest floor; if the heap then
// holds more than 16 MiB of garbage past the rest goal, the pacer collects it and returns it
// to the OS at once (debug.FreeOSMemory, once per rest and at most every 5s), as the
// server does after start-up. And once 30 s into a rest with no collection for as long, it
// collects and returns the heap again: what the server's own timers freed after the load
// (the watch cache's objects made cold, its encodings dropped) is garbage no collection
// would find while nothing allocates (after an informer's first list of 100,000 cold
// Databases, the example server's anonymous memory stayed at 273 MB where 131 MB was live).
//
// A server's pacer (StartServer) holds GOGC at 25 (StartupPercent) while the server starts, until
// Started: start-up's garbage, collected as it goes rather than once at the end, leaves the
// objects the server keeps in fewer pages.
//
// SetMemoryLimit adds a soft ceiling (a server's --gc-memory-limit): the runtime's memory
// limit, which makes the collector run earlier as the process nears it, given way to a live
// heap that outgrows it (kept at least live/4 above what the runtime cannot give back), so the
// collector never runs back to back.
//
// The GOGC and GOMEMLIMIT environment variables stay the operator's: when either is set,
// Start changes nothing.
package gcpacer

// Package gcpacer sets how often an API server's garbage collector runs: never before the
// heap has grown by a headroom (DefaultHeadroom) past its live heap, and, once the live heap
// is larger than the headroom, as GOGC=100 does (when the heap has doubled).
//
// The Go runtime's default (GOGC=100) collects whenever the heap has doubled since the last
// collection. An API server's live heap is small (tens of MiB: caches, connections) while it
// allocates a few tens of KiB per request, so at thousands of requests per second it
// collects several times a second and spends a tenth of its CPU marking the same live heap
// (11-12% in the example server's update benchmark).
// A floor under the heap goal is what the Go proposals for a minimum heap size asked for
// (golang/go#23044, #44309) and what "GC ballast" emulated; GOMEMLIMIT (a ceiling) does not
// give it. With the floor, a server collects a few times less often at a cost in memory
// bounded by the headroom, and a server whose live heap outgrows the headroom behaves as with the
// default.
//
// The GOGC and GOMEMLIMIT environment variables stay the operator's: when either is set,
// Start changes nothing.
package gcpacer

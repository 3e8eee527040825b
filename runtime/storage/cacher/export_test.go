package cacher

import "time"

// DropHistory forgets the events up to rev, as if the history window had moved past them.
func (c *Cacher) DropHistory(rev int64) { c.state.dropHistory(rev) }

// Revision returns the revision the cache has seen everything up to.
func (c *Cacher) Revision() int64 { return c.state.revision() }

// Watchers returns the number of registered watchers.
func (c *Cacher) Watchers() int { return c.watchers.count() }

// SetBookmarkFrequency sets how often watchers get BOOKMARKs (and the reflector checks) for
// a test, and returns the function restoring it. Tests using it must not run in parallel.
func SetBookmarkFrequency(d time.Duration) (restore func()) {
	oldFreq, oldTick := bookmarkFrequency, bookmarkTick
	bookmarkFrequency, bookmarkTick = d, d/2
	return func() { bookmarkFrequency, bookmarkTick = oldFreq, oldTick }
}

// Examined returns how many entries filtered lists have matched against their predicate.
func Examined() int64 { return examined.Load() }

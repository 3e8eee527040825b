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

// CoolPass runs one pass of the cooler now and returns how many objects went cold.
func (c *Cacher) CoolPass() int { return c.coolPass() }

// Cold reports whether the cache's current object at key (relative to the resource) is
// cold: only its compressed JSON is held. found is false when the cache has no object there.
func (c *Cacher) Cold(key string) (cold, found bool) {
	c.state.mu.RLock()
	t := c.state.current
	c.state.mu.RUnlock()
	e, found := t.Get(&entry{key: key})
	return found && e.isCold(), found
}

// YoungPass runs one young pass of the cooler now and returns how many objects went cold.
func (c *Cacher) YoungPass() int { return c.youngPass() }

// YoungEntries returns how many entries wait for the cooler's next young pass.
func (c *Cacher) YoungEntries() int {
	c.young.mu.Lock()
	defer c.young.mu.Unlock()
	return len(c.young.entries)
}

// SetListPageSize sets the page size of the lists that fill a cache, for a test, and returns
// the function restoring it. Tests using it must not run in parallel.
func SetListPageSize(n int64) (restore func()) {
	old := listPageSize
	listPageSize = n
	return func() { listPageSize = old }
}

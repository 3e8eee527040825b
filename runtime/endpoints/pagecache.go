package endpoints

import "sync"

// Bounds of a scope's pageCache: at most pageCacheSize pages, pageCacheBytes bytes in all.
const (
	pageCacheSize  = 16
	pageCacheBytes = 8 << 20
)

// pageCache keeps the gzipped bodies of the last list pages a scope wrote, by request
// (namespace and query string) and list resourceVersion: a list of the same request at the
// same resourceVersion (the collection has not changed, or the page is read at a fixed
// revision) has the same body, so it is written again without encoding or compressing, as
// the encodingCache does for GETs. The oldest page goes first. Safe for concurrent use.
type pageCache struct {
	mu    sync.Mutex
	pages map[pageKey][]byte
	order []pageKey // oldest first
	bytes int
}

// pageKey names one list page.
type pageKey struct {
	namespace, query, resourceVersion string
}

func newPageCache() *pageCache { return &pageCache{pages: map[pageKey][]byte{}} }

// get returns the body kept for key.
func (c *pageCache) get(key pageKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.pages[key]
	return data, ok
}

// add keeps data, which must not be modified afterwards, as the body of key.
func (c *pageCache) add(key pageKey, data []byte) {
	if len(data) > pageCacheBytes/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pages[key]; ok {
		return
	}
	for len(c.order) > 0 && (len(c.order) >= pageCacheSize || c.bytes+len(data) > pageCacheBytes) {
		oldest := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.pages[oldest])
		delete(c.pages, oldest)
	}
	c.pages[key] = data
	c.order = append(c.order, key)
	c.bytes += len(data)
}

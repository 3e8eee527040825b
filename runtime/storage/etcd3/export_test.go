package etcd3

import "time"

// SetBookmarkFrequency sets bookmarkFrequency for a test and returns the function restoring it.
// Tests using it must not run in parallel with other watches.
func SetBookmarkFrequency(d time.Duration) (restore func()) {
	old := bookmarkFrequency
	bookmarkFrequency = d
	return func() { bookmarkFrequency = old }
}

// SetSlowWatcherTimeout sets slowWatcherTimeout for a test and returns the function restoring
// it. Tests using it must not run in parallel with other watches.
func SetSlowWatcherTimeout(d time.Duration) (restore func()) {
	old := slowWatcherTimeout
	slowWatcherTimeout = d
	return func() { slowWatcherTimeout = old }
}

// InitialChunk is how many keys one read of a watch's initial events fetches.
const InitialChunk = initialChunk

// SetResourceVersionWait sets resourceVersionWait for a test and returns the function
// restoring it. Tests using it must not run in parallel.
func SetResourceVersionWait(d time.Duration) (restore func()) {
	old := resourceVersionWait
	resourceVersionWait = d
	return func() { resourceVersionWait = old }
}

//go:build !unix

package app

import "os"

// tryLock does not lock where flock is not available (windows, plan9): a second server on
// the same data directory then waits on the embedded etcd's own database lock.
func tryLock(*os.File) error { return nil }

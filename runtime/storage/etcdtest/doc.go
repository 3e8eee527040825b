// Package etcdtest gives a test its own real etcd: Run starts an embedded single-member etcd
// on free loopback ports in t.TempDir(), with quiet logs and a short progress-notify interval
// (so BOOKMARK tests run fast), and stops it when the test ends.
package etcdtest

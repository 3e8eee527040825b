package storage

import (
	"context"
	"time"
)

// ttlKey carries the time to live of the objects a write stores.
type ttlKey struct{}

// WithTTL returns ctx asking the Create or GuaranteedUpdate it is passed to to store the
// object with a time to live of ttl: etcd removes it that long after the write (or up to
// the lease reuse period later, as kube-apiserver's etcd3 store attaches objects written
// close together to one lease), and watchers see it deleted then. A ttl under one second
// means no expiry. The registry's Store sets it from its TTLFunc, as kube-apiserver's
// Store.TTLFunc passes the TTL to storage.Interface.Create and GuaranteedUpdate; Events are
// the kind that has one (--event-ttl). Implementations without expiry ignore it.
func WithTTL(ctx context.Context, ttl time.Duration) context.Context {
	return context.WithValue(ctx, ttlKey{}, ttl)
}

// TTLFrom returns the time to live WithTTL put on ctx, in whole seconds (rounded down), and
// 0 (no expiry) when there is none or it is under one second.
func TTLFrom(ctx context.Context) int64 {
	ttl, _ := ctx.Value(ttlKey{}).(time.Duration)
	return int64(ttl / time.Second)
}

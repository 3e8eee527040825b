package etcd3

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// The lease manager's defaults, as kube-apiserver's etcd3 storage: a lease is reused for up
// to 60 seconds (--lease-reuse-duration-seconds) and by at most 1,000 objects.
const (
	DefaultLeaseReuseDurationSeconds = 60
	DefaultLeaseMaxObjectCount       = 1000
	// leaseReuseDurationPercent caps the reuse period at 5 % of the TTL, so that an
	// object never outlives its TTL by more than that share.
	leaseReuseDurationPercent = 0.05
)

// LeaseConfig tunes how objects stored with a TTL (storage.WithTTL) share etcd leases, as
// kube-apiserver's etcd3.LeaseManagerConfig.
type LeaseConfig struct {
	// ReuseDurationSeconds is the longest a lease is handed to new writes after it was
	// granted, in seconds; the period is also at most 5 % of the TTL. 0 means
	// DefaultLeaseReuseDurationSeconds; a negative value means no reuse.
	ReuseDurationSeconds int64
	// MaxObjectCount is the most writes one lease is attached to; 0 or less means
	// DefaultLeaseMaxObjectCount.
	MaxObjectCount int64
}

// leaseManager grants the leases of objects written with a TTL, as kube-apiserver's etcd3
// leaseManager: a write reuses the last lease granted when that lease expires no sooner
// than the write's TTL and no later than TTL + the reuse period, and has been attached to
// fewer than MaxObjectCount writes; otherwise a lease of TTL + the reuse period is granted.
// Objects written within one reuse period thus share a lease (one etcd lease per window,
// not one per object), each living between TTL and TTL + the reuse period. Leases are
// never revoked or kept alive: etcd deletes their keys when they expire. Safe for
// concurrent use.
type leaseManager struct {
	client *clientv3.Client
	cfg    LeaseConfig

	mu         sync.Mutex
	prevID     clientv3.LeaseID
	prevExpiry time.Time
	attached   int64
}

// newLeaseManager returns the lease manager of one store.
func newLeaseManager(client *clientv3.Client, cfg LeaseConfig) *leaseManager {
	if cfg.ReuseDurationSeconds == 0 {
		cfg.ReuseDurationSeconds = DefaultLeaseReuseDurationSeconds
	}
	if cfg.ReuseDurationSeconds < 0 {
		cfg.ReuseDurationSeconds = 0
	}
	if cfg.MaxObjectCount <= 0 {
		cfg.MaxObjectCount = DefaultLeaseMaxObjectCount
	}
	return &leaseManager{client: client, cfg: cfg}
}

// lease returns the lease to attach a write with a TTL of ttl seconds (> 0) to, granting
// one when the last cannot be reused. Errors: etcd's, from the grant.
func (l *leaseManager) lease(ctx context.Context, ttl int64) (clientv3.LeaseID, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	reuse := min(int64(leaseReuseDurationPercent*float64(ttl)), l.cfg.ReuseDurationSeconds)
	valid := now.Add(time.Duration(ttl) * time.Second).Before(l.prevExpiry)
	sufficient := now.Add(time.Duration(ttl+reuse) * time.Second).After(l.prevExpiry)
	// Every request counts, granted or not, as kube counts them.
	l.attached++
	if valid && sufficient && l.attached <= l.cfg.MaxObjectCount {
		return l.prevID, nil
	}
	resp, err := l.client.Grant(ctx, ttl+reuse)
	if err != nil {
		return 0, err
	}
	l.prevID = resp.ID
	l.prevExpiry = now.Add(time.Duration(ttl+reuse) * time.Second)
	l.attached = 1
	return resp.ID, nil
}

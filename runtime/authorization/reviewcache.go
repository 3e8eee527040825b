package authorization

import (
	"encoding/json"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/cache"
)

// reviewCacheSize bounds the answers a reviewCache remembers, as kube's webhook authorizer's
// response cache (k8s.io/apiserver plugin/pkg/authorizer/webhook: 8192).
const reviewCacheSize = 8192

// reviewCache remembers a SubjectAccessReview service's answers (Webhook,
// SubjectAccessReviewer), as kube's webhook authorizer: an allowed answer is reused for the
// authorized TTL, any other (denied, no opinion) for the unauthorized TTL, each apart
// (--authorization-webhook-cache-authorized-ttl and -unauthorized-ttl); a failed review is
// not remembered, and a TTL of 0 remembers nothing of its kind. The key is the review's spec.
// Safe for concurrent use.
type reviewCache struct {
	lru                 *cache.LRUExpireCache
	authorized, refused time.Duration
}

// reviewAnswer is a remembered decision and its reason.
type reviewAnswer struct {
	decision Decision
	reason   string
}

// newReviewCache returns a cache with the two TTLs (negative ones count as 0), reading time
// from clock.
func newReviewCache(authorized, unauthorized time.Duration, clock cache.Clock) *reviewCache {
	return &reviewCache{lru: cache.NewLRUExpireCacheWithClock(reviewCacheSize, clock),
		authorized: max(authorized, 0), refused: max(unauthorized, 0)}
}

// key is the cache key of spec. Errors: spec cannot be encoded.
func reviewKey(spec authzv1.SubjectAccessReviewSpec) (string, error) {
	b, err := json.Marshal(spec)
	return string(b), err
}

// get returns the answer remembered under key, if any.
func (c *reviewCache) get(key string) (reviewAnswer, bool) {
	v, ok := c.lru.Get(key)
	if !ok {
		return reviewAnswer{}, false
	}
	return v.(reviewAnswer), true
}

// add remembers an answer under key for the TTL of its decision.
func (c *reviewCache) add(key string, decision Decision, reason string) {
	ttl := c.refused
	if decision == Allow {
		ttl = c.authorized
	}
	if ttl > 0 {
		c.lru.Add(key, reviewAnswer{decision: decision, reason: reason}, ttl)
	}
}

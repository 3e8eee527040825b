package auth

import (
	"crypto/sha256"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"

	"github.com/apigen-dev/apigen/runtime/request"
)

// tokenCacheSize bounds the tokens a tokenCache remembers, as k8s.io/apiserver's cached token
// authenticator (32 stripes of 1024).
const tokenCacheSize = 32 * 1024

// tokenCache remembers the answers about bearer tokens of a TokenReview service (TokenWebhook,
// TokenReviewer), as k8s.io/apiserver's cached token authenticator
// (pkg/authentication/token/cache, built with cacheErrs false): an authenticated answer is
// reused for the success TTL, an unauthenticated one for the failure TTL, a failed review is
// not remembered, and a TTL of 0 remembers nothing of its kind. Keys are the tokens' SHA-256
// (no token is kept in memory) in an LRU of tokenCacheSize entries, so unknown tokens cannot
// grow it. Safe for concurrent use.
type tokenCache struct {
	lru              *cache.LRUExpireCache
	success, failure time.Duration
}

// tokenAnswer is a remembered answer: the user, nil when not authenticated.
type tokenAnswer struct{ user *request.User }

// newTokenCache returns a cache with the two TTLs (negative ones count as 0), reading time
// from clock.
func newTokenCache(success, failure time.Duration, clock cache.Clock) *tokenCache {
	return &tokenCache{lru: cache.NewLRUExpireCacheWithClock(tokenCacheSize, clock),
		success: max(success, 0), failure: max(failure, 0)}
}

// get returns the answer remembered about token, if any: the user (nil: not authenticated).
func (c *tokenCache) get(token string) (*request.User, bool) {
	v, ok := c.lru.Get(sha256.Sum256([]byte(token)))
	if !ok {
		return nil, false
	}
	return v.(tokenAnswer).user, true
}

// add remembers the answer about token (u nil: not authenticated) for its TTL.
func (c *tokenCache) add(token string, u *request.User) {
	ttl := c.success
	if u == nil {
		ttl = c.failure
	}
	if ttl > 0 {
		c.lru.Add(sha256.Sum256([]byte(token)), tokenAnswer{user: u}, ttl)
	}
}

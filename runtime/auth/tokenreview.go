package auth

import (
	"context"
	"crypto/sha256"
	"net/http"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
)

// Delegated authentication's defaults, as k8s.io/apiserver's DelegatingAuthenticationOptions:
// an answer about a token is reused for DefaultTokenReviewCacheTTL; a failed review for
// failedTokenReviewTTL; at most tokenReviewCacheSize tokens are remembered.
const (
	DefaultTokenReviewCacheTTL = 10 * time.Second
	failedTokenReviewTTL       = 10 * time.Second
	tokenReviewCacheSize       = 4096
	tokenReviewTimeout         = 10 * time.Second
)

// TokenReviewer authenticates bearer tokens by creating TokenReviews in a cluster
// (authentication.k8s.io/v1, through client-go's typed client), as a delegating server
// (k8s.io/apiserver's DelegatingAuthenticationOptions, --authentication-kubeconfig) does:
// the cluster answers who the token is. Answers (authenticated or not) are cached for the TTL
// and reviews that fail for 10s, keyed by the token's SHA-256, in an LRU of bounded size, so
// that no token is kept in memory and unknown tokens cannot grow it. Safe for concurrent use.
type TokenReviewer struct {
	client authenticationv1client.TokenReviewInterface
	ttl    time.Duration
	cache  *cache.LRUExpireCache
}

// tokenReviewAnswer is a cached answer: the user, nil when not authenticated.
type tokenReviewAnswer struct{ user *User }

// NewTokenReviewer returns a TokenReviewer over client; ttl <= 0 means
// DefaultTokenReviewCacheTTL.
func NewTokenReviewer(client authenticationv1client.TokenReviewInterface, ttl time.Duration) *TokenReviewer {
	if ttl <= 0 {
		ttl = DefaultTokenReviewCacheTTL
	}
	return &TokenReviewer{client: client, ttl: ttl, cache: cache.NewLRUExpireCache(tokenReviewCacheSize)}
}

// AuthenticateToken implements TokenAuthenticator. A cluster that cannot be reached, or
// answers with an error, authenticates no one for 10s.
func (r *TokenReviewer) AuthenticateToken(token string) (*User, bool) {
	key := sha256.Sum256([]byte(token))
	if a, ok := r.cache.Get(key); ok {
		u := a.(tokenReviewAnswer).user
		return u, u != nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tokenReviewTimeout)
	defer cancel()
	review, err := r.client.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		r.cache.Add(key, tokenReviewAnswer{}, failedTokenReviewTTL)
		return nil, false
	}
	var u *User
	if review.Status.Authenticated {
		u = userFromReview(review.Status.User)
	}
	r.cache.Add(key, tokenReviewAnswer{user: u}, r.ttl)
	return u, u != nil
}

// Dynamic runs, for each request, the authenticator current returns at that moment (nil: the
// request is not its kind), for settings that change while the server runs: the client CA and
// front-proxy settings a delegating server reads from its cluster's
// extension-apiserver-authentication ConfigMap.
func Dynamic(current func() Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*User, bool, error) {
		a := current()
		if a == nil {
			return nil, false, nil
		}
		return a.AuthenticateRequest(r)
	})
}

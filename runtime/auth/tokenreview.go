package auth

import (
	"context"
	"net/http"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	"k8s.io/utils/clock"

	"github.com/apigen-dev/apigen/runtime/request"
)

// DefaultTokenReviewCacheTTL is how long an answer about a token is reused by default, as
// k8s.io/apiserver's DelegatingAuthenticationOptions.CacheTTL
// (--authentication-token-webhook-cache-ttl, 10s).
const DefaultTokenReviewCacheTTL = 10 * time.Second

// tokenReviewTimeout bounds one TokenReview, as DelegatingAuthenticationOptions'
// TokenRequestTimeout.
const tokenReviewTimeout = 10 * time.Second

// TokenReviewer authenticates bearer tokens by creating TokenReviews in a cluster
// (authentication.k8s.io/v1, through client-go's typed client), as a delegating server
// (k8s.io/apiserver's DelegatingAuthenticationOptions, --authentication-kubeconfig) does:
// the cluster answers who the token is. Answers, authenticated or not, are reused for the
// TTL, as k8s.io/apiserver's delegating authenticator caches them (success and failure TTLs
// both CacheTTL, errors not cached); see tokenCache. Safe for concurrent use.
type TokenReviewer struct {
	client authenticationv1client.TokenReviewInterface
	cache  *tokenCache
}

// NewTokenReviewer returns a TokenReviewer over client; ttl is how long an answer is reused
// (DefaultTokenReviewCacheTTL is the flag's default; 0 asks the cluster about every request).
func NewTokenReviewer(client authenticationv1client.TokenReviewInterface, ttl time.Duration) *TokenReviewer {
	return &TokenReviewer{client: client, cache: newTokenCache(ttl, ttl, clock.RealClock{})}
}

// AuthenticateToken implements TokenAuthenticator. A cluster that cannot be reached, or
// answers with an error, authenticates no one for this request (and is asked again on the
// next).
func (r *TokenReviewer) AuthenticateToken(token string) (*request.User, bool) {
	if u, ok := r.cache.get(token); ok {
		return u, u != nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tokenReviewTimeout)
	defer cancel()
	review, err := r.client.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return nil, false
	}
	var u *request.User
	if review.Status.Authenticated {
		u = userFromReview(review.Status.User)
	}
	r.cache.add(token, u)
	return u, u != nil
}

// Dynamic runs, for each request, the authenticator current returns at that moment (nil: the
// request is not its kind), for settings that change while the server runs: the client CA and
// front-proxy settings a delegating server reads from its cluster's
// extension-apiserver-authentication ConfigMap.
func Dynamic(current func() Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		a := current()
		if a == nil {
			return nil, false, nil
		}
		return a.AuthenticateRequest(r)
	})
}

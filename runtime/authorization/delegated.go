package authorization

import (
	"context"
	"strings"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/utils/clock"
)

// Delegated authorization's defaults, as k8s.io/apiserver's DelegatingAuthorizationOptions
// AllowCacheTTL and DenyCacheTTL (--authorization-webhook-cache-authorized-ttl,
// -unauthorized-ttl).
const (
	DefaultAuthorizedTTL   = 10 * time.Second
	DefaultUnauthorizedTTL = 10 * time.Second
)

// reviewTimeout bounds one SubjectAccessReview, as DelegatingAuthorizationOptions'
// ClientTimeout.
const reviewTimeout = 10 * time.Second

// SubjectAccessReviewer asks a cluster whether a request is allowed, by creating a
// SubjectAccessReview (authorization.k8s.io/v1, through client-go's typed client), as a
// delegating server (k8s.io/apiserver's DelegatingAuthorizationOptions,
// --authorization-kubeconfig) does: status.allowed is Allow, status.denied Deny, neither
// NoOpinion. Allowed answers are reused for the authorized TTL, the others for the
// unauthorized TTL (see reviewCache); a review that fails is NoOpinion with the error, not
// cached. Safe for concurrent use.
type SubjectAccessReviewer struct {
	client authorizationv1client.SubjectAccessReviewInterface
	cache  *reviewCache
}

// NewSubjectAccessReviewer returns a reviewer over client with the two TTLs
// (DefaultAuthorizedTTL and DefaultUnauthorizedTTL are the flags' defaults; 0 asks the
// cluster every time for that kind of answer).
func NewSubjectAccessReviewer(client authorizationv1client.SubjectAccessReviewInterface, authorizedTTL, unauthorizedTTL time.Duration) *SubjectAccessReviewer {
	return &SubjectAccessReviewer{client: client, cache: newReviewCache(authorizedTTL, unauthorizedTTL, clock.RealClock{})}
}

// Authorize implements Authorizer.
func (z *SubjectAccessReviewer) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	spec := subjectAccessReviewSpec(a)
	key, err := reviewKey(spec)
	if err != nil {
		return NoOpinion, "", err
	}
	if ans, ok := z.cache.get(key); ok {
		return ans.decision, ans.reason, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	review, err := z.client.Create(ctx, &authzv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return NoOpinion, "", err
	}
	decision, reason, _ := decisionOf(review.Status)
	z.cache.add(key, decision, reason)
	return decision, reason, nil
}

// AlwaysAllowPaths allows every non-resource request to one of paths (an entry ending in
// "*" is a prefix) and has no opinion on the others, as k8s.io/apiserver's path authorizer
// for --authorization-always-allow-paths: a delegating server answers its health checks
// without asking the cluster.
func AlwaysAllowPaths(paths ...string) Authorizer {
	return AuthorizerFunc(func(_ context.Context, a Attributes) (Decision, string, error) {
		if a.IsResourceRequest {
			return NoOpinion, "", nil
		}
		for _, p := range paths {
			if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(a.Path, prefix) || a.Path == p {
				return Allow, "", nil
			}
		}
		return NoOpinion, "", nil
	})
}

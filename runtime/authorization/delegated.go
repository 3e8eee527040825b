package authorization

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
)

// Delegated authorization's defaults, as k8s.io/apiserver's DelegatingAuthorizationOptions
// (--authorization-webhook-cache-authorized-ttl, -unauthorized-ttl).
const (
	DefaultAuthorizedTTL   = 10 * time.Second
	DefaultUnauthorizedTTL = 10 * time.Second
	reviewCacheSize        = 10000
	reviewTimeout          = 10 * time.Second
)

// SubjectAccessReviewer asks a cluster whether a request is allowed, by creating a
// SubjectAccessReview (authorization.k8s.io/v1, through client-go's typed client), as a
// delegating server (k8s.io/apiserver's DelegatingAuthorizationOptions,
// --authorization-kubeconfig) does: status.allowed is Allow, status.denied Deny, neither
// NoOpinion. Allowed answers are reused for the authorized TTL, the others for the
// unauthorized TTL, in an LRU of bounded size; a review that fails is NoOpinion with the
// error, not cached. Safe for concurrent use.
type SubjectAccessReviewer struct {
	client                   authorizationv1client.SubjectAccessReviewInterface
	authorizedTTL, deniedTTL time.Duration
	cache                    *cache.LRUExpireCache
}

// reviewAnswer is a cached decision and its reason.
type reviewAnswer struct {
	decision Decision
	reason   string
}

// NewSubjectAccessReviewer returns a reviewer over client; a TTL <= 0 means its default.
func NewSubjectAccessReviewer(client authorizationv1client.SubjectAccessReviewInterface, authorizedTTL, unauthorizedTTL time.Duration) *SubjectAccessReviewer {
	if authorizedTTL <= 0 {
		authorizedTTL = DefaultAuthorizedTTL
	}
	if unauthorizedTTL <= 0 {
		unauthorizedTTL = DefaultUnauthorizedTTL
	}
	return &SubjectAccessReviewer{client: client, authorizedTTL: authorizedTTL, deniedTTL: unauthorizedTTL,
		cache: cache.NewLRUExpireCache(reviewCacheSize)}
}

// Authorize implements Authorizer.
func (z *SubjectAccessReviewer) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	spec := subjectAccessReviewSpec(a)
	keyBytes, err := json.Marshal(spec)
	if err != nil {
		return NoOpinion, "", err
	}
	key := string(keyBytes)
	if v, ok := z.cache.Get(key); ok {
		ans := v.(reviewAnswer)
		return ans.decision, ans.reason, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	review, err := z.client.Create(ctx, &authzv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return NoOpinion, "", err
	}
	decision, reason, _ := decisionOf(review.Status)
	ttl := z.deniedTTL
	if decision == Allow {
		ttl = z.authorizedTTL
	}
	z.cache.Add(key, reviewAnswer{decision: decision, reason: reason}, ttl)
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

package review

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	authnv1 "github.com/apigen-dev/apigen/runtime/apis/authentication/v1"
	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
)

// Install makes the create-only stores of info (the authentication.k8s.io group) answer:
// TokenReviews with authn (nil answers every review unauthenticated, as kube without a token
// authenticator), SelfSubjectReviews with the request's user. Errors: info lacks one of them.
func Install(info *registry.APIGroupInfo, authn auth.Authenticator) error {
	stores := info.VersionedResourcesStorageMap["v1"]
	tokens, ok1 := stores["tokenreviews"].(*registry.CreateOnlyStore)
	self, ok2 := stores["selfsubjectreviews"].(*registry.CreateOnlyStore)
	if !ok1 || !ok2 {
		return fmt.Errorf("the authentication.k8s.io group serves no tokenreviews or selfsubjectreviews")
	}
	tokens.Respond = func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
		return tokenReview(ctx, authn, obj.(*authnv1.TokenReview))
	}
	self.Respond = selfSubjectReview
	return nil
}

// tokenReview authenticates spec.token, as kube's tokenreview REST: a request carrying
// nothing but the token as its bearer token goes to authn; status.audiences are the
// audiences asked for (the authenticators here are audience-agnostic).
func tokenReview(ctx context.Context, authn auth.Authenticator, review *authnv1.TokenReview) (runtime.Object, error) {
	if ns := request.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	if review.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	if authn == nil {
		return review, nil
	}
	req := (&http.Request{Header: http.Header{}, URL: &url.URL{}}).WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+review.Spec.Token)
	u, ok, err := authn.AuthenticateRequest(req)
	review.Status.Authenticated = ok
	if err != nil {
		review.Status.Error = err.Error()
	}
	if ok && u != nil {
		review.Status.User = userInfo(u)
		review.Status.Audiences = review.Spec.Audiences
	}
	return review, nil
}

// selfSubjectReview returns the requesting user, as kube's selfsubjectreview REST.
func selfSubjectReview(ctx context.Context, _ runtime.Object) (runtime.Object, error) {
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	out := &authnv1.SelfSubjectReview{Status: authnv1.SelfSubjectReviewStatus{UserInfo: userInfo(u)}}
	out.CreationTimestamp = metav1.NewTime(time.Now())
	return out, nil
}

// userInfo is u as the reviews answer it; extra is never nil, as kube's.
func userInfo(u *request.User) authnv1.UserInfo {
	info := authnv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: make(map[string]authnv1.ExtraValue, len(u.Extra))}
	for k, v := range u.Extra {
		info.Extra[k] = v
	}
	return info
}

package review

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	authnv1 "github.com/apigen-dev/apigen/runtime/apis/authentication/v1"
	authninstall "github.com/apigen-dev/apigen/runtime/apis/authentication/v1/install"
	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
)

func stores(t *testing.T, authn auth.Authenticator) (tokens, self *registry.CreateOnlyStore) {
	t.Helper()
	info, err := authninstall.NewAPIGroupInfo(runtime.NewScheme(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Install(info, authn); err != nil {
		t.Fatal(err)
	}
	v1 := info.VersionedResourcesStorageMap["v1"]
	return v1["tokenreviews"].(*registry.CreateOnlyStore), v1["selfsubjectreviews"].(*registry.CreateOnlyStore)
}

// TestTokenReview authenticates tokens with the server's authenticator chain as
// kube-apiserver builds it: a token file, the authenticated group added, anonymous only for
// /healthz (never for a review).
func TestTokenReview(t *testing.T) {
	file, err := auth.ParseTokenFile(strings.NewReader("t1,alice,u1,\"devs,ops\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	authn := auth.FailOnError(auth.WithAuthenticatedGroup(auth.BearerToken(file)), auth.AnonymousFor("/healthz"))
	tokens, _ := stores(t, authn)
	review := func(ctx context.Context, spec authnv1.TokenReviewSpec) (*authnv1.TokenReviewStatus, error) {
		obj, err := tokens.Create(ctx, &authnv1.TokenReview{Spec: spec}, &metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		return &obj.(*authnv1.TokenReview).Status, nil
	}
	st, err := review(context.Background(), authnv1.TokenReviewSpec{Token: "t1", Audiences: []string{"a"}})
	if err != nil || !st.Authenticated || st.User.Username != "alice" || st.User.UID != "u1" ||
		strings.Join(st.User.Groups, ",") != "devs,ops,system:authenticated" || strings.Join(st.Audiences, ",") != "a" || st.User.Extra == nil {
		t.Errorf("a known token: %v %+v", err, st)
	}
	if st, err := review(context.Background(), authnv1.TokenReviewSpec{Token: "t2"}); err != nil || st.Authenticated || st.Error != "invalid bearer token" || st.User.Username != "" {
		t.Errorf("an unknown token: %v %+v", err, st)
	}
	if _, err := review(context.Background(), authnv1.TokenReviewSpec{}); !apierrors.IsBadRequest(err) {
		t.Errorf("no token: %v", err)
	}
	if _, err := review(request.WithNamespace(context.Background(), "x"), authnv1.TokenReviewSpec{Token: "t1"}); !apierrors.IsBadRequest(err) ||
		!strings.Contains(err.Error(), "namespace is not allowed on this type: x") {
		t.Errorf("a namespace: %v", err)
	}
}

func TestSelfSubjectReview(t *testing.T) {
	_, self := stores(t, nil)
	u := &request.User{Name: "alice", UID: "u1", Groups: []string{"devs"}, Extra: map[string][]string{"scopes": {"read"}}}
	obj, err := self.Create(request.WithUser(context.Background(), u), &authnv1.SelfSubjectReview{}, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	info := obj.(*authnv1.SelfSubjectReview).Status.UserInfo
	if info.Username != "alice" || info.UID != "u1" || strings.Join(info.Groups, ",") != "devs" || strings.Join(info.Extra["scopes"], ",") != "read" ||
		obj.(*authnv1.SelfSubjectReview).CreationTimestamp.IsZero() {
		t.Errorf("self: %+v", obj)
	}
	if _, err := self.Create(context.Background(), &authnv1.SelfSubjectReview{}, &metav1.CreateOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("no user: %v", err)
	}
}

package review

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	authzv1 "github.com/apigen-dev/apigen/runtime/apis/authorization/v1"
	authzinstall "github.com/apigen-dev/apigen/runtime/apis/authorization/v1/install"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
)

// reviews builds the authorization.k8s.io group answering with z; bob may list databases in
// team-a.
func reviews(t *testing.T, z authorization.Authorizer) map[string]*registry.CreateOnlyStore {
	t.Helper()
	info, err := authzinstall.NewAPIGroupInfo(runtime.NewScheme(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Install(info, z); err != nil {
		t.Fatal(err)
	}
	out := map[string]*registry.CreateOnlyStore{}
	for name, s := range info.VersionedResourcesStorageMap["v1"] {
		out[name] = s.(*registry.CreateOnlyStore)
	}
	return out
}

func teamPolicy() authorization.Authorizer {
	p := rbac.Bootstrap()
	p.Roles = append(p.Roles, rbac.Role{Namespace: "team-a", Name: "reader", Rules: []rbac.PolicyRule{
		{Verbs: []string{"list"}, APIGroups: []string{"db.example.com"}, Resources: []string{"databases"}}}})
	p.Bindings = append(p.Bindings, rbac.Binding{Namespace: "team-a", Name: "bob", RoleRef: rbac.RoleRef{Kind: "Role", Name: "reader"},
		Subjects: []rbac.Subject{{Kind: "User", Name: "bob"}}})
	return rbac.Authorizer((*rbac.StaticPolicy)(p))
}

var bob = &request.User{Name: "bob", Groups: []string{request.AllAuthenticated}}

func as(u *request.User, namespace string) context.Context {
	return request.WithNamespace(request.WithUser(context.Background(), u), namespace)
}

func TestSelfSubjectAccessReview(t *testing.T) {
	s := reviews(t, teamPolicy())["selfsubjectaccessreviews"]
	ask := func(ctx context.Context, ra *authzv1.ResourceAttributes, nra *authzv1.NonResourceAttributes) (*authzv1.SelfSubjectAccessReview, error) {
		obj, err := s.Create(ctx, &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra, NonResourceAttributes: nra}}, &metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		return obj.(*authzv1.SelfSubjectAccessReview), nil
	}
	r, err := ask(as(bob, ""), &authzv1.ResourceAttributes{Namespace: "team-a", Verb: "list", Group: "db.example.com", Resource: "databases"}, nil)
	if err != nil || !r.Status.Allowed || r.Status.Reason != `RBAC: allowed by RoleBinding "bob/team-a" of Role "reader" to User "bob"` {
		t.Errorf("bob lists databases in team-a: %v %+v", err, r)
	}
	if r, err := ask(as(bob, ""), &authzv1.ResourceAttributes{Namespace: "team-b", Verb: "list", Group: "db.example.com", Resource: "databases"}, nil); err != nil || r.Status.Allowed || r.Status.Denied {
		t.Errorf("bob lists databases in team-b: %v %+v", err, r)
	}
	if r, err := ask(as(bob, ""), nil, &authzv1.NonResourceAttributes{Path: "/apis", Verb: "get"}); err != nil || !r.Status.Allowed {
		t.Errorf("bob gets /apis: %v %+v", err, r)
	}
	_, err = ask(as(bob, ""), nil, nil)
	if !apierrors.IsInvalid(err) || err.Error() != `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified` {
		t.Errorf("an empty review: %v", err)
	}
	if _, err := ask(context.Background(), nil, &authzv1.NonResourceAttributes{Path: "/apis", Verb: "get"}); !apierrors.IsBadRequest(err) {
		t.Errorf("no user: %v", err)
	}
}

func TestSubjectAccessReviews(t *testing.T) {
	stores := reviews(t, authorization.Union(teamPolicy(), authorization.AlwaysDeny()))
	spec := authzv1.SubjectAccessReviewSpec{User: "bob", ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "team-a", Verb: "delete", Group: "db.example.com", Resource: "databases"}}
	obj, err := stores["subjectaccessreviews"].Create(context.Background(), &authzv1.SubjectAccessReview{Spec: spec}, &metav1.CreateOptions{})
	if r := obj.(*authzv1.SubjectAccessReview); err != nil || r.Status.Allowed || !r.Status.Denied {
		t.Errorf("bob deletes, AlwaysDeny after RBAC: %v %+v", err, r.Status)
	}
	spec.ResourceAttributes.Verb = "list"
	obj, err = stores["localsubjectaccessreviews"].Create(as(bob, "team-a"), &authzv1.LocalSubjectAccessReview{Spec: spec}, &metav1.CreateOptions{})
	if r := obj.(*authzv1.LocalSubjectAccessReview); err != nil || !r.Status.Allowed || r.Namespace != "team-a" {
		t.Errorf("bob lists in team-a: %v %+v", err, r)
	}
	_, err = stores["localsubjectaccessreviews"].Create(as(bob, "team-b"), &authzv1.LocalSubjectAccessReview{Spec: spec}, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.resourceAttributes.namespace: Invalid value: "team-a": must match metadata.namespace`) {
		t.Errorf("a review of team-a sent to team-b: %v", err)
	}
	lsar := &authzv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b"}, Spec: spec}
	if _, err = stores["localsubjectaccessreviews"].Create(as(bob, "team-a"), lsar, &metav1.CreateOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("an object naming another namespace than the request's: %v", err)
	}
	sar := &authzv1.SubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: authzv1.SubjectAccessReviewSpec{ResourceAttributes: spec.ResourceAttributes}}
	_, err = stores["subjectaccessreviews"].Create(context.Background(), sar, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.user: Invalid value: \"\": at least one of user or group must be specified") ||
		!strings.Contains(err.Error(), "metadata: Invalid value:") {
		t.Errorf("a review without user, with a name: %v", err)
	}
}

// noRules authorizes nothing and cannot list rules, as a webhook.
type noRules struct{}

func (noRules) Authorize(context.Context, authorization.Attributes) (authorization.Decision, string, error) {
	return authorization.NoOpinion, "", nil
}

func TestSelfSubjectRulesReview(t *testing.T) {
	s := reviews(t, authorization.Union(teamPolicy(), noRules{}))["selfsubjectrulesreviews"]
	obj, err := s.Create(as(bob, ""), &authzv1.SelfSubjectRulesReview{Spec: authzv1.SelfSubjectRulesReviewSpec{Namespace: "team-a"}}, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := obj.(*authzv1.SelfSubjectRulesReview).Status
	var found bool
	for _, r := range st.ResourceRules {
		if strings.Join(r.Resources, ",") == "databases" && strings.Join(r.Verbs, ",") == "list" {
			found = true
		}
	}
	if !found || !st.Incomplete || len(st.NonResourceRules) == 0 {
		t.Errorf("bob's rules in team-a (incomplete: a member lists no rules): %+v", st)
	}
	obj, _ = s.Create(as(bob, ""), &authzv1.SelfSubjectRulesReview{Spec: authzv1.SelfSubjectRulesReviewSpec{Namespace: "team-b"}}, &metav1.CreateOptions{})
	for _, r := range obj.(*authzv1.SelfSubjectRulesReview).Status.ResourceRules {
		if strings.Join(r.Resources, ",") == "databases" {
			t.Errorf("a team-a rule in team-b: %+v", r)
		}
	}
	if _, err := s.Create(as(bob, ""), &authzv1.SelfSubjectRulesReview{}, &metav1.CreateOptions{}); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "no namespace on request") {
		t.Errorf("no namespace: %v", err)
	}
}

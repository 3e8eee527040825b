package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clientsetAs returns a typed clientset for the server as the token user (one of
// tokenUsers), or as the admin when user is "", sending protobuf bodies as kubectl does.
func (s *apiServer) clientsetAs(t *testing.T, user string) *kubernetes.Clientset {
	t.Helper()
	cfg := rest.CopyConfig(s.config)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	if user != "" {
		cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = nil, nil, "", ""
		cfg.BearerToken = tokenUsers[user]
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestReviewsClientGo drives the review APIs with client-go's typed clients, as another
// server delegating its authentication and authorization to this one does: TokenReview
// authenticates with the server's token file; SubjectAccessReview and
// LocalSubjectAccessReview answer with RBAC, with kube's 422 for a malformed review; only a
// user bound to system:auth-delegator (or an admin) may create them.
func TestReviewsClientGo(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "namespace", "team-a")
	s.mustKubectl(t, "create", "role", "db-writer", "-n", "team-a", "--verb=get,list,create", "--resource=databases.db.example.com")
	s.mustKubectl(t, "create", "rolebinding", "alice-writes", "-n", "team-a", "--role=db-writer", "--user=alice")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin := s.clientsetAs(t, "")

	tr, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{
		Token: tokenUsers["bob"], Audiences: []string{"api"}}}, metav1.CreateOptions{})
	if err != nil || !tr.Status.Authenticated || tr.Status.User.Username != "bob" || tr.Status.User.UID != "uid-bob" ||
		strings.Join(tr.Status.User.Groups, ",") != "system:authenticated" || strings.Join(tr.Status.Audiences, ",") != "api" {
		t.Errorf("TokenReview of bob's token: %v %+v", err, tr)
	}
	tr, err = admin.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: "forged"}}, metav1.CreateOptions{})
	if err != nil || tr.Status.Authenticated || !strings.Contains(tr.Status.Error, "invalid bearer token") {
		t.Errorf("TokenReview of a forged token: %v %+v", err, tr.Status)
	}
	_, err = admin.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{}, metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "token is required for TokenReview in authentication") {
		t.Errorf("TokenReview without a token: %v", err)
	}

	var sar *authzv1.SubjectAccessReview
	deadline := time.Now().Add(30 * time.Second)
	for { // the RoleBinding reaches the authorizer within about a second
		sar, err = admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: "alice", ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "team-a", Verb: "create", Group: "db.example.com", Resource: "databases"}}},
			metav1.CreateOptions{})
		if err != nil || sar.Status.Allowed || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || !sar.Status.Allowed || sar.Status.Reason != `RBAC: allowed by RoleBinding "alice-writes/team-a" of Role "db-writer" to User "alice"` {
		t.Errorf("SubjectAccessReview of alice creating databases: %v %+v", err, sar)
	}
	for _, tc := range []struct {
		groups []string
		want   bool
	}{{nil, false}, {[]string{"system:authenticated"}, true}} {
		sar, err = admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: "bob", Groups: tc.groups, NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}}, metav1.CreateOptions{})
		if err != nil || sar.Status.Allowed != tc.want {
			t.Errorf("SubjectAccessReview of bob in %v getting /healthz: %v %+v, want allowed %v", tc.groups, err, sar, tc.want)
		}
	}
	_, err = admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "exactly one of nonResourceAttributes or resourceAttributes must be specified") ||
		!strings.Contains(err.Error(), "at least one of user or group must be specified") {
		t.Errorf("an empty SubjectAccessReview: %v", err)
	}
	lsar, err := admin.AuthorizationV1().LocalSubjectAccessReviews("team-a").Create(ctx, &authzv1.LocalSubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: "alice", ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "team-a", Verb: "get", Group: "db.example.com", Resource: "databases"}}},
		metav1.CreateOptions{})
	if err != nil || !lsar.Status.Allowed || lsar.Namespace != "team-a" {
		t.Errorf("LocalSubjectAccessReview in team-a: %v %+v", err, lsar)
	}
	_, err = admin.AuthorizationV1().LocalSubjectAccessReviews("team-a").Create(ctx, &authzv1.LocalSubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: "alice", ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.resourceAttributes.namespace: Invalid value: \"default\": must match metadata.namespace") {
		t.Errorf("a LocalSubjectAccessReview of another namespace: %v", err)
	}

	// Delegation needs system:auth-delegator.
	carol := s.clientsetAs(t, "carol")
	_, err = carol.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "carol" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope`) {
		t.Errorf("carol's TokenReview before the binding: %v", err)
	}
	s.mustKubectl(t, "create", "clusterrolebinding", "carol-delegates", "--clusterrole=system:auth-delegator", "--user=carol")
	deadline = time.Now().Add(30 * time.Second)
	for {
		tr, err = carol.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: tokenUsers["alice"]}}, metav1.CreateOptions{})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || tr.Status.User.Username != "alice" {
		t.Errorf("carol's TokenReview with system:auth-delegator: %v %+v", err, tr)
	}
	if _, err := carol.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: "alice", NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("carol's SubjectAccessReview with system:auth-delegator: %v", err)
	}
}

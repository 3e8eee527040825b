package authorization_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
)

// TestWebhook serves a SubjectAccessReview endpoint over TLS that allows reading databases,
// denies deleting them and has no opinion on the rest.
func TestWebhook(t *testing.T) {
	var last authzv1.SubjectAccessReviewSpec
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review authzv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Kind != "SubjectAccessReview" {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		last = review.Spec
		if ra := review.Spec.ResourceAttributes; ra != nil && ra.Resource == "databases" {
			switch ra.Verb {
			case "get", "list":
				review.Status = authzv1.SubjectAccessReviewStatus{Allowed: true, Reason: "readers may read"}
			case "delete":
				review.Status = authzv1.SubjectAccessReviewStatus{Denied: true, Reason: "nobody deletes databases"}
			case "explode":
				http.Error(w, "oops", http.StatusInternalServerError)
				return
			}
		}
		_ = json.NewEncoder(w).Encode(&review)
	}))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "authz.kubeconfig")
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {server: %q, certificate-authority-data: %s}\n"+
		"contexts:\n- name: w\n  context: {cluster: w, user: u}\nusers:\n- name: u\n  user: {token: x}\ncurrent-context: w\n", srv.URL, ca)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	wh, err := authorization.NewWebhook(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	user := &request.User{Name: "gina", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"s"}}}
	attrs := func(verb, resource string) authorization.Attributes {
		return authorization.Attributes{User: user, RequestInfo: request.RequestInfo{IsResourceRequest: true, Verb: verb,
			APIGroup: "db.example.com", APIVersion: "v1", Namespace: "team-a", Resource: resource, Name: "main"}}
	}
	for _, tc := range []struct {
		verb, resource string
		want           authorization.Decision
		reason         string
		wantErr        bool
	}{
		{"get", "databases", authorization.Allow, "readers may read", false},
		{"delete", "databases", authorization.Deny, "nobody deletes databases", false},
		{"get", "backups", authorization.NoOpinion, "", false},
		{"explode", "databases", authorization.NoOpinion, "", true},
	} {
		d, reason, err := wh.Authorize(context.Background(), attrs(tc.verb, tc.resource))
		if d != tc.want || reason != tc.reason || (err != nil) != tc.wantErr {
			t.Errorf("%s %s: %v %q %v", tc.verb, tc.resource, d, reason, err)
		}
	}
	if last.User != "gina" || last.Groups[0] != "dev" || last.Extra["scopes"][0] != "s" || last.ResourceAttributes.Namespace != "team-a" || last.ResourceAttributes.Name != "main" {
		t.Errorf("review sent: %+v", last)
	}
	d, _, _ := wh.Authorize(context.Background(), authorization.Attributes{User: user, RequestInfo: request.RequestInfo{Verb: "get", Path: "/metrics"}})
	if d != authorization.NoOpinion || last.NonResourceAttributes == nil || last.NonResourceAttributes.Path != "/metrics" {
		t.Errorf("non-resource review: %v %+v", d, last)
	}
}

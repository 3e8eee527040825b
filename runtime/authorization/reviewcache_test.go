package authorization

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
	"sync/atomic"
	"testing"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/apigen-dev/apigen/runtime/request"
)

// TestReviewCacheTTLs checks the Webhook mode and the delegated SubjectAccessReviewer keep
// kube's webhook authorizer's cache semantics: allowed answers reused for the authorized TTL,
// denied and no-opinion ones for the unauthorized TTL, each apart; failed reviews never
// reused; TTLs of 0 ask every time. The service (TLS, both a webhook URL and client-go's
// path) allows get, denies delete, has no opinion on list and fails explode.
func TestReviewCacheTTLs(t *testing.T) {
	t.Parallel()
	calls := map[string]*atomic.Int32{"get": {}, "delete": {}, "list": {}, "explode": {}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review authzv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Spec.ResourceAttributes == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		verb := review.Spec.ResourceAttributes.Verb
		calls[verb].Add(1)
		switch verb {
		case "get":
			review.Status.Allowed = true
		case "delete":
			review.Status.Denied = true
		case "explode":
			http.Error(w, "oops", http.StatusInternalServerError)
			return
		}
		review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
		w.Header().Set("Content-Type", "application/json")
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
	webhook, err := NewWebhook(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	client, err := authorizationv1client.NewForConfig(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	reviewer := NewSubjectAccessReviewer(client.SubjectAccessReviews(), 0, 0)
	want := map[string]Decision{"get": Allow, "delete": Deny, "list": NoOpinion, "explode": NoOpinion}
	for _, tc := range []struct {
		name string
		z    Authorizer
		set  func(*reviewCache)
	}{
		{"webhook", webhook, func(c *reviewCache) { webhook.cache = c }},
		{"delegated", reviewer, func(c *reviewCache) { reviewer.cache = c }},
	} {
		for _, c := range calls {
			c.Store(0)
		}
		clk := clocktesting.NewFakeClock(time.Now())
		tc.set(newReviewCache(10*time.Second, 3*time.Second, clk))
		ask := func(step time.Duration, wantCalls map[string]int32) {
			t.Helper()
			clk.Step(step)
			for verb := range calls {
				a := Attributes{User: &request.User{Name: "gina"}, RequestInfo: request.RequestInfo{IsResourceRequest: true,
					Verb: verb, APIGroup: "db.example.com", APIVersion: "v1", Resource: "databases", Name: "main"}}
				d, _, err := tc.z.Authorize(context.Background(), a)
				if d != want[verb] || (err != nil) != (verb == "explode") {
					t.Errorf("%s: %s: %v %v", tc.name, verb, d, err)
				}
			}
			for verb, n := range wantCalls {
				if got := calls[verb].Load(); got != n {
					t.Errorf("%s after %v more: %s reviewed %d times, want %d", tc.name, step, verb, got, n)
				}
			}
		}
		ask(0, map[string]int32{"get": 1, "delete": 1, "list": 1, "explode": 1})
		ask(2*time.Second, map[string]int32{"get": 1, "delete": 1, "list": 1, "explode": 2}) // all cached but the error
		ask(2*time.Second, map[string]int32{"get": 1, "delete": 2, "list": 2, "explode": 3}) // unauthorized TTL (3s) passed
		ask(7*time.Second, map[string]int32{"get": 2, "delete": 3, "list": 3, "explode": 4}) // authorized TTL (10s) passed
		tc.set(newReviewCache(0, 0, clk))
		ask(0, map[string]int32{"get": 3, "delete": 4, "list": 4, "explode": 5})
		ask(0, map[string]int32{"get": 4, "delete": 5, "list": 5, "explode": 6}) // TTLs of 0: no cache
	}
}

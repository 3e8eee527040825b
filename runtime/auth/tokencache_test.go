package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// tokenReviewServer serves TokenReviews over TLS, both at a webhook's URL and at
// /apis/authentication.k8s.io/v1/tokenreviews (client-go's): "good" is erin, "bad" is not
// authenticated, "broken" is a 500. It counts the reviews by token.
func tokenReviewServer(t *testing.T) (*httptest.Server, map[string]*atomic.Int32) {
	calls := map[string]*atomic.Int32{"good": {}, "bad": {}, "broken": {}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review authnv1.TokenReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		if c := calls[review.Spec.Token]; c != nil {
			c.Add(1)
		}
		switch review.Spec.Token {
		case "good":
			review.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "erin"}}
		case "broken":
			http.Error(w, "oops", http.StatusInternalServerError)
			return
		}
		review.APIVersion, review.Kind = "authentication.k8s.io/v1", "TokenReview"
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
	}))
	t.Cleanup(srv.Close)
	return srv, calls
}

// TestTokenCacheTTL checks both token authenticators keep kube's cached token authenticator's
// semantics (k8s.io/apiserver pkg/authentication/token/cache, cacheErrs false): answers,
// authenticated or not, reused for the TTL and asked again after it; failed reviews never
// reused; a TTL of 0 asks every time.
func TestTokenCacheTTL(t *testing.T) {
	t.Parallel()
	srv, calls := tokenReviewServer(t)
	webhook, err := NewTokenWebhook(writeWebhookConfig(t, srv), 0)
	if err != nil {
		t.Fatal(err)
	}
	client, err := authenticationv1client.NewForConfig(&rest.Config{Host: srv.URL,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	reviewer := NewTokenReviewer(client.TokenReviews(), 0)
	for _, tc := range []struct {
		name  string
		authn TokenAuthenticator
		set   func(*tokenCache)
	}{
		{"webhook", webhook, func(c *tokenCache) { webhook.cache = c }},
		{"tokenreview", reviewer, func(c *tokenCache) { reviewer.cache = c }},
	} {
		for _, c := range calls {
			c.Store(0)
		}
		clk := clocktesting.NewFakeClock(time.Now())
		tc.set(newTokenCache(10*time.Second, 10*time.Second, clk))
		ask := func(step time.Duration, want map[string]int32) {
			t.Helper()
			clk.Step(step)
			for token := range calls {
				u, ok := tc.authn.AuthenticateToken(token)
				if ok != (token == "good") || ok && u.Name != "erin" {
					t.Errorf("%s: %q: %+v %v", tc.name, token, u, ok)
				}
			}
			for token, n := range want {
				if got := calls[token].Load(); got != n {
					t.Errorf("%s after %v more: %q reviewed %d times, want %d", tc.name, step, token, got, n)
				}
			}
		}
		ask(0, map[string]int32{"good": 1, "bad": 1, "broken": 1})
		ask(9*time.Second, map[string]int32{"good": 1, "bad": 1, "broken": 2}) // within the TTL; errors not cached
		ask(2*time.Second, map[string]int32{"good": 2, "bad": 2, "broken": 3}) // past it
		tc.set(newTokenCache(0, 0, clk))
		ask(0, map[string]int32{"good": 3, "bad": 3, "broken": 4})
		ask(0, map[string]int32{"good": 4, "bad": 4, "broken": 5}) // TTL 0: no cache
	}
}

package auth

import (
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

	authnv1 "k8s.io/api/authentication/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// writeWebhookConfig writes a kubeconfig-format webhook config pointing at the TLS server srv
// (client-go sends credentials over TLS only).
func writeWebhookConfig(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	path := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: apiserver
  user:
    token: apiserver-secret
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
`, srv.URL, ca)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTokenWebhook(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer apiserver-secret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		var review authnv1.TokenReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Kind != "TokenReview" {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		if review.Spec.Token == "good" {
			review.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{
				Username: "erin", UID: "42", Groups: []string{"ops"}, Extra: map[string]authnv1.ExtraValue{"scopes": {"a"}}}}
		}
		if review.Spec.Token == "broken" {
			http.Error(w, "oops", http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(&review)
	}))
	t.Cleanup(srv.Close)
	wh, err := NewTokenWebhook(writeWebhookConfig(t, srv), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Now())
	wh.cache = newTokenCache(time.Minute, time.Minute, clk)

	u, ok := wh.AuthenticateToken("good")
	if !ok || u.Name != "erin" || u.UID != "42" || len(u.Groups) != 1 || u.Extra["scopes"][0] != "a" {
		t.Fatalf("good token: %+v %v", u, ok)
	}
	if _, ok := wh.AuthenticateToken("bad"); ok {
		t.Error("a token the webhook refused authenticated")
	}
	if _, ok := wh.AuthenticateToken("broken"); ok {
		t.Error("a webhook error authenticated")
	}
	before := calls.Load()
	wh.AuthenticateToken("good")
	wh.AuthenticateToken("bad")
	if calls.Load() != before {
		t.Error("answers within the TTL were not cached")
	}
	wh.AuthenticateToken("broken")
	if calls.Load() != before+1 {
		t.Error("a webhook error was cached")
	}
	clk.Step(2 * time.Minute)
	wh.AuthenticateToken("good")
	if calls.Load() != before+2 {
		t.Error("an expired answer was reused")
	}
	// Through BearerToken, a refused token is an error, not anonymous.
	if _, ok, err := BearerToken(wh).AuthenticateRequest(newRequest("Authorization", "Bearer bad")); ok || err == nil {
		t.Errorf("refused token through BearerToken: %v %v", ok, err)
	}
}

package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// TokenWebhook authenticates bearer tokens by sending a TokenReview
// (authentication.k8s.io/v1) to a remote service, as kube-apiserver's
// --authentication-token-webhook-config-file: the service answers status.authenticated and
// status.user. Answers, authenticated or not, are reused for the TTL
// (--authentication-token-webhook-cache-ttl), as kube's cached token authenticator; failed
// reviews are not. Safe for concurrent use.
type TokenWebhook struct {
	client *http.Client
	url    string
	cache  *tokenCache
}

// NewTokenWebhook reads the webhook's kubeconfig-format file (its cluster's server is the URL
// to POST to, with its certificate authority; its user the credential the server presents),
// as kube-apiserver reads it. ttl is how long an answer is reused; 0 asks the webhook about
// every request, as kube's --authentication-token-webhook-cache-ttl=0. Errors: the file
// cannot be read or names no server.
func NewTokenWebhook(configFile string, ttl time.Duration) (*TokenWebhook, error) {
	client, url, err := WebhookClient(configFile)
	if err != nil {
		return nil, fmt.Errorf("token webhook: %w", err)
	}
	return &TokenWebhook{client: client, url: url, cache: newTokenCache(ttl, ttl, clock.RealClock{})}, nil
}

// WebhookClient reads a webhook's kubeconfig-format config file, as kube-apiserver reads its
// authentication and authorization webhook configs, and returns a client for it (trusting
// the cluster's certificate authority, presenting the user's credential; client-go sends
// credentials over TLS only) and the URL to POST reviews to. Requests time out after 30s
// unless the file says otherwise. Errors: the file cannot be read or names no server.
func WebhookClient(configFile string) (*http.Client, string, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", configFile)
	if err != nil {
		return nil, "", fmt.Errorf("cannot load %s: %w", configFile, err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("cannot build a client from %s: %w", configFile, err)
	}
	if cfg.Timeout == 0 {
		client.Timeout = 30 * time.Second
	}
	// A traced request's trace context goes to the webhook (an authorization webhook's
	// SubjectAccessReview; authentication runs before the request's span starts, as kube's).
	client.Transport = tracing.Transport(client.Transport)
	return client, cfg.Host, nil
}

// AuthenticateToken implements TokenAuthenticator. A webhook that cannot be reached or answers
// with an error status authenticates no one (and is not cached).
func (t *TokenWebhook) AuthenticateToken(token string) (*request.User, bool) {
	if u, ok := t.cache.get(token); ok {
		return u, u != nil
	}
	u, err := t.review(context.Background(), token)
	if err != nil {
		return nil, false
	}
	t.cache.add(token, u)
	return u, u != nil
}

// review asks the webhook about token; a nil user means not authenticated.
func (t *TokenWebhook) review(ctx context.Context, token string) (*request.User, error) {
	body, err := json.Marshal(&authnv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authnv1.TokenReviewSpec{Token: token},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("token webhook answered %d", resp.StatusCode)
	}
	var review authnv1.TokenReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("token webhook answer is not a TokenReview: %w", err)
	}
	if !review.Status.Authenticated {
		return nil, nil
	}
	return userFromReview(review.Status.User), nil
}

// userFromReview is the User a TokenReview's status names.
func userFromReview(s authnv1.UserInfo) *request.User {
	u := &request.User{Name: s.Username, UID: s.UID, Groups: s.Groups}
	for k, v := range s.Extra {
		if u.Extra == nil {
			u.Extra = map[string][]string{}
		}
		u.Extra[k] = v
	}
	return u
}

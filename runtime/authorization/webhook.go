package authorization

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/apigen-dev/apigen/runtime/auth"
)

// Webhook asks a remote service with a SubjectAccessReview (authorization.k8s.io/v1), as
// kube-apiserver's --authorization-mode=Webhook with --authorization-webhook-config-file:
// status.allowed is Allow, status.denied is Deny, neither is NoOpinion; status.reason is the
// reason. A service that cannot be reached or answers an error status gives NoOpinion and
// the error. Allowed answers are reused for the authorized TTL, the others for the
// unauthorized TTL (--authorization-webhook-cache-authorized-ttl and -unauthorized-ttl, see
// reviewCache); errors are not. Safe for concurrent use.
type Webhook struct {
	client *http.Client
	url    string
	cache  *reviewCache
}

// NewWebhook reads the webhook's kubeconfig-format config file (see auth.WebhookClient);
// authorizedTTL and unauthorizedTTL are how long its answers are reused (0: not at all).
func NewWebhook(configFile string, authorizedTTL, unauthorizedTTL time.Duration) (*Webhook, error) {
	client, url, err := auth.WebhookClient(configFile)
	if err != nil {
		return nil, fmt.Errorf("authorization webhook: %w", err)
	}
	return &Webhook{client: client, url: url, cache: newReviewCache(authorizedTTL, unauthorizedTTL, clock.RealClock{})}, nil
}

// Authorize implements Authorizer.
func (wh *Webhook) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	spec := subjectAccessReviewSpec(a)
	key, err := reviewKey(spec)
	if err != nil {
		return NoOpinion, "", err
	}
	if ans, ok := wh.cache.get(key); ok {
		return ans.decision, ans.reason, nil
	}
	decision, reason, err := wh.review(ctx, spec)
	if err == nil {
		wh.cache.add(key, decision, reason)
	}
	return decision, reason, err
}

// review asks the webhook about spec.
func (wh *Webhook) review(ctx context.Context, spec authzv1.SubjectAccessReviewSpec) (Decision, string, error) {
	review := &authzv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Spec:     spec,
	}
	body, err := json.Marshal(review)
	if err != nil {
		return NoOpinion, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.url, bytes.NewReader(body))
	if err != nil {
		return NoOpinion, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := wh.client.Do(req)
	if err != nil {
		return NoOpinion, "", fmt.Errorf("authorization webhook: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return NoOpinion, "", fmt.Errorf("authorization webhook: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return NoOpinion, "", fmt.Errorf("authorization webhook answered %d", resp.StatusCode)
	}
	var answer authzv1.SubjectAccessReview
	if err := json.Unmarshal(data, &answer); err != nil {
		return NoOpinion, "", fmt.Errorf("authorization webhook answer is not a SubjectAccessReview: %w", err)
	}
	return decisionOf(answer.Status)
}

// subjectAccessReviewSpec is the SubjectAccessReview of a, as kube's webhook and delegating
// authorizers send it.
func subjectAccessReviewSpec(a Attributes) authzv1.SubjectAccessReviewSpec {
	var spec authzv1.SubjectAccessReviewSpec
	if a.User != nil {
		spec.User, spec.UID, spec.Groups = a.User.Name, a.User.UID, a.User.Groups
		if len(a.User.Extra) > 0 {
			spec.Extra = map[string]authzv1.ExtraValue{}
			for k, v := range a.User.Extra {
				spec.Extra[k] = v
			}
		}
	}
	if a.IsResourceRequest {
		spec.ResourceAttributes = &authzv1.ResourceAttributes{Namespace: a.Namespace, Verb: a.Verb,
			Group: a.APIGroup, Version: a.APIVersion, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
	} else {
		spec.NonResourceAttributes = &authzv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
	}
	return spec
}

// decisionOf reads a SubjectAccessReview's answer: status.allowed is Allow, status.denied
// Deny, neither NoOpinion; status.reason is the reason.
func decisionOf(status authzv1.SubjectAccessReviewStatus) (Decision, string, error) {
	switch {
	case status.Allowed:
		return Allow, status.Reason, nil
	case status.Denied:
		return Deny, status.Reason, nil
	}
	return NoOpinion, status.Reason, nil
}

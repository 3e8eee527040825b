package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// maxResponseBytes bounds a webhook's answer (a patch cannot usefully exceed a few times an
// object's 3 MiB).
const maxResponseBytes = 32 << 20

// ServiceResolver finds where a webhook's Service is served, as k8s.io/apiserver's
// webhook.ServiceResolver.
type ServiceResolver interface {
	// ResolveEndpoint returns the base URL (https://host:port) of Service namespace/name on
	// port.
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// DNSServiceResolver resolves a Service to https://<name>.<namespace>.svc:<port>, the
// cluster DNS name, as k8s.io/apiserver's default service resolver.
type DNSServiceResolver struct{}

// ResolveEndpoint implements ServiceResolver; it never fails.
func (DNSServiceResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return &url.URL{Scheme: "https", Host: net.JoinHostPort(name+"."+namespace+".svc", strconv.Itoa(int(port)))}, nil
}

// clients posts AdmissionReviews to webhooks, keeping one HTTP client per CA bundle and
// server name. Safe for concurrent use.
type clients struct {
	resolver ServiceResolver

	mu     sync.Mutex
	byKey  map[clientKey]*http.Client
	dialer net.Dialer
}

// maxClients bounds the cached clients: past it (configurations churning through CA
// bundles) the cache is emptied and idle connections closed.
const maxClients = 256

type clientKey struct {
	caBundle, serverName string
}

func newClients(resolver ServiceResolver) *clients {
	if resolver == nil {
		resolver = DNSServiceResolver{}
	}
	return &clients{resolver: resolver, byKey: map[clientKey]*http.Client{}}
}

// target returns the URL a webhook is called at and the name its certificate must have.
func (c *clients) target(cc *admregv1.WebhookClientConfig) (*url.URL, string, error) {
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return nil, "", err
		}
		return u, u.Hostname(), nil
	}
	if cc.Service == nil {
		return nil, "", errors.New("the webhook has neither a url nor a service")
	}
	s := cc.Service
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	u, err := c.resolver.ResolveEndpoint(s.Namespace, s.Name, port)
	if err != nil {
		return nil, "", err
	}
	if s.Path != nil {
		u.Path = *s.Path
	}
	return u, s.Name + "." + s.Namespace + ".svc", nil
}

// client returns the HTTP client trusting caBundle (the system roots when empty) and
// expecting a certificate for serverName.
func (c *clients) client(caBundle []byte, serverName string) (*http.Client, error) {
	key := clientKey{string(caBundle), serverName}
	c.mu.Lock()
	defer c.mu.Unlock()
	if hc, ok := c.byKey[key]; ok {
		return hc, nil
	}
	if len(c.byKey) >= maxClients {
		for k, old := range c.byKey {
			old.CloseIdleConnections()
			delete(c.byKey, k)
		}
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		cfg.RootCAs = pool
	}
	// A traced request's trace context (traceparent) goes to the webhook, whose spans join
	// the request's trace, as kube-apiserver's webhook clients carry it.
	hc := &http.Client{Transport: tracing.Transport(&http.Transport{
		TLSClientConfig:     cfg,
		DialContext:         c.dialer.DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	})}
	c.byKey[key] = hc
	return hc, nil
}

// post sends body (an AdmissionReview) to the webhook and returns its answer's body. The
// request carries ?timeout=<seconds>s when ctx has a deadline, as client-go sets it. Errors
// are those of client-go's REST client: the transport's ("Post \"https://...\": dial tcp
// ...: connection refused"), or a status error for a non-2xx answer.
func (c *clients) post(ctx context.Context, cc *admregv1.WebhookClientConfig, body []byte) ([]byte, error) {
	u, serverName, err := c.target(cc)
	if err != nil {
		return nil, err
	}
	hc, err := c.client(cc.CABundle, serverName)
	if err != nil {
		return nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		if timeout := time.Until(deadline); timeout > 0 {
			if truncated := timeout.Truncate(time.Second); truncated != timeout {
				timeout = truncated + time.Second
			}
			q := u.Query()
			q.Set("timeout", timeout.String())
			u.RawQuery = q.Encode()
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", string(bytes.TrimSpace(data)), 0, true)
	}
	return data, nil
}

// Client calls webhooks over HTTPS as the admission plugins do (a URL, or a Service resolved
// by a ServiceResolver; the serving certificate checked against caBundle; one cached HTTP
// client per CA bundle and server name), for the other webhooks of the server: the
// conversion webhooks of CustomResourceDefinitions (runtime/apiextensions/conversion), as
// kube-apiserver's webhook.ClientManager serves admission and conversion webhooks alike.
// Safe for concurrent use.
type Client struct{ c *clients }

// NewClient returns a Client resolving Services with resolver (nil: DNSServiceResolver).
func NewClient(resolver ServiceResolver) *Client { return &Client{c: newClients(resolver)} }

// Post sends body (a JSON review) to the webhook cc names and returns its answer's body. The
// request carries ?timeout=<seconds>s when ctx has a deadline, as client-go sets it. Errors
// are client-go's REST client's: the transport's ("Post \"https://...\": dial tcp ...:
// connection refused"), an unparsable caBundle, or a status error for a non-2xx answer.
func (c *Client) Post(ctx context.Context, cc *admregv1.WebhookClientConfig, body []byte) ([]byte, error) {
	return c.c.post(ctx, cc, body)
}

// callError is a failure to call a webhook (not a refusal), as kube's ErrCallingWebhook;
// failurePolicy decides what it does.
type callError struct {
	webhook string
	reason  error
	status  *apierrors.StatusError
}

// Error is kube's: `failed calling webhook "<name>": <reason>`.
func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
}

package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// requestTimeout bounds one HTTP request of the benchmark, as a client-go client's Timeout.
const requestTimeout = time.Minute

// APIClient is one benchmark client of the server: it owns one keep-alive HTTP/1.1
// connection (opened on the first request, reopened only if the server closes it) and sends
// what client-go sends for JSON: Accept and Content-Type application/json, and, through
// net/http's transport, "Accept-Encoding: gzip" with transparent decompression of gzipped
// responses (client-go leaves compression to the transport in the same way). An APIClient is
// not safe for concurrent use: each benchmark client has its own.
type APIClient struct {
	server string // e.g. "http://127.0.0.1:6443"
	// base is the server URL and the path of the template's resource up to the namespace,
	// e.g. "http://127.0.0.1:6443/apis/db.example.com/v1/namespaces/".
	base string
	// resource is the template's resource name, e.g. "databases".
	resource string
	client   *http.Client
	tmpl     *ObjectTemplate
	buf      []byte // the request body being built
}

// NewAPIClient returns a client of the server at serverURL (e.g. "https://127.0.0.1:6443")
// that renders objects with tmpl and reads and writes tmpl's resource. tlsConfig (nil for plain HTTP) is the TLS configuration
// of an https URL: the server's CA and a client certificate, as the kubeconfig the server
// writes holds them; the client then speaks HTTP/2 where the server offers it, as client-go
// does.
func NewAPIClient(serverURL string, tmpl *ObjectTemplate, tlsConfig *tls.Config) *APIClient {
	return newAPIClient(serverURL, tmpl, newTransport(tlsConfig))
}

// newAPIClient returns a client of serverURL through transport.
func newAPIClient(serverURL string, tmpl *ObjectTemplate, transport http.RoundTripper) *APIClient {
	return &APIClient{
		server:   serverURL,
		base:     serverURL + "/apis/" + tmpl.res.Group + "/" + tmpl.res.Version + "/namespaces/",
		resource: tmpl.res.Resource,
		client:   &http.Client{Transport: transport, Timeout: requestTimeout},
		tmpl:     tmpl,
	}
}

// newTransport returns a transport of one connection, with tlsConfig (may be nil).
func newTransport(tlsConfig *tls.Config) *http.Transport {
	transport := &http.Transport{
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     90 * time.Second,
	}
	if tlsConfig != nil {
		transport.TLSClientConfig = tlsConfig.Clone()
		transport.ForceAttemptHTTP2 = true
	}
	return transport
}

// Close closes the client's idle connection.
func (c *APIClient) Close() {
	c.client.CloseIdleConnections()
}

// CreateNamespace creates the Namespace name (POST /api/v1/namespaces); one that exists
// already is fine, and so is a server that serves no namespaces (404 Not Found: an
// aggregated server such as the anchor, k8s.io/sample-apiserver run standalone without
// NamespaceLifecycle, admits objects in any namespace). Errors: any other response than 201
// Created, 409 Conflict or 404 Not Found.
func (c *APIClient) CreateNamespace(ctx context.Context, name string) error {
	body := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + name + `"}}`)
	_, err := c.do(ctx, http.MethodPost, c.server+"/api/v1/namespaces", body, http.StatusCreated)
	var se *statusError
	if errors.As(err, &se) && (se.code == http.StatusConflict || se.code == http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot create namespace %s: %w", name, err)
	}
	return nil
}

// Create creates the template's object name in namespace with the template's content (parameter "seq" set
// to seq) and returns its resourceVersion. Errors: any response other than 201 Created.
func (c *APIClient) Create(ctx context.Context, namespace, name string, seq int) (string, error) {
	c.buf = c.tmpl.Render(c.buf[:0], name, "", seq)
	body, err := c.do(ctx, http.MethodPost, c.base+namespace+"/"+c.resource, c.buf, http.StatusCreated)
	if err != nil {
		return "", fmt.Errorf("cannot create %s/%s: %w", namespace, name, err)
	}
	m, err := decodeMeta(body)
	if err != nil {
		return "", fmt.Errorf("cannot create %s/%s: %w", namespace, name, err)
	}
	return m.Metadata.ResourceVersion, nil
}

// Get reads object name of the template's resource in namespace (a quorum read, as resourceVersion "" asks) and
// returns the size of the response body. Errors: any response other than 200 OK.
func (c *APIClient) Get(ctx context.Context, namespace, name string) (int, error) {
	body, err := c.GetBody(ctx, namespace, name)
	return len(body), err
}

// GetBody is Get returning the response body itself (decompressed, as the transport hands it
// over).
func (c *APIClient) GetBody(ctx context.Context, namespace, name string) ([]byte, error) {
	body, err := c.do(ctx, http.MethodGet, c.base+namespace+"/"+c.resource+"/"+name, nil, http.StatusOK)
	if err != nil {
		return nil, fmt.Errorf("cannot get %s/%s: %w", namespace, name, err)
	}
	return body, nil
}

// Update replaces object name of the template's resource in namespace with the template's content (parameter "seq"
// set to seq) on the condition that its resourceVersion is still resourceVersion, as a
// client-go Update does, and returns the new resourceVersion. Errors: any response other
// than 200 OK, e.g. 409 Conflict when resourceVersion is stale.
func (c *APIClient) Update(ctx context.Context, namespace, name, resourceVersion string, seq int) (string, error) {
	c.buf = c.tmpl.Render(c.buf[:0], name, resourceVersion, seq)
	body, err := c.do(ctx, http.MethodPut, c.base+namespace+"/"+c.resource+"/"+name, c.buf, http.StatusOK)
	if err != nil {
		return "", fmt.Errorf("cannot update %s/%s: %w", namespace, name, err)
	}
	m, err := decodeMeta(body)
	if err != nil {
		return "", fmt.Errorf("cannot update %s/%s: %w", namespace, name, err)
	}
	if m.Metadata.ResourceVersion == "" || m.Metadata.ResourceVersion == resourceVersion {
		return "", fmt.Errorf("cannot update %s/%s: resourceVersion %q after the update, want a new one",
			namespace, name, m.Metadata.ResourceVersion)
	}
	return m.Metadata.ResourceVersion, nil
}

// ApplyManager is the fieldManager of the benchmark's server-side applies.
const ApplyManager = "apigen-loadgen"

// Apply server-side applies object name of the template's resource in namespace with the template's content (parameter
// "seq" set to seq) as ApplyManager, forcing conflicts, as client-go's Apply does (a JSON
// body sent as application/apply-patch+yaml), and returns whether it created the object.
// Errors: any response other than 200 OK or 201 Created.
func (c *APIClient) Apply(ctx context.Context, namespace, name string, seq int) (created bool, err error) {
	c.buf = c.tmpl.Render(c.buf[:0], name, "", seq)
	target := c.base + namespace + "/" + c.resource + "/" + name + "?fieldManager=" + ApplyManager + "&force=true"
	_, err = c.send(ctx, http.MethodPatch, target, "application/apply-patch+yaml", c.buf, http.StatusOK)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusCreated {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot apply %s/%s: %w", namespace, name, err)
	}
	return false, nil
}

// List reads every object of the template's resource in namespace in pages of at most
// limit objects (limit 0: one unpaginated response), following continue tokens as a
// client-go pager does, and returns the number of pages. When countItems is set it also
// decodes every page fully and returns the number of objects; otherwise only each page's
// list metadata is decoded (the rest is read and discarded, so the client spends little
// CPU) and items is 0. maxPages bounds the loop. Errors: any response other than 200 OK, or
// more than maxPages pages.
func (c *APIClient) List(ctx context.Context, namespace string, limit int64, countItems bool, maxPages int) (pages, items int, err error) {
	token := ""
	for pages < maxPages {
		q := url.Values{}
		if limit > 0 {
			q.Set("limit", strconv.FormatInt(limit, 10))
		}
		if token != "" {
			q.Set("continue", token)
		}
		body, err := c.do(ctx, http.MethodGet, c.base+namespace+"/"+c.resource+"?"+q.Encode(), nil, http.StatusOK)
		if err != nil {
			return pages, items, fmt.Errorf("cannot list %s page %d: %w", namespace, pages+1, err)
		}
		pages++
		var page struct {
			objectMeta
			Items []json.RawMessage `json:"items"`
		}
		if countItems {
			err = json.Unmarshal(body, &page)
		} else {
			page.objectMeta, err = decodeListMeta(body)
		}
		if err != nil {
			return pages, items, fmt.Errorf("cannot list %s page %d: %w", namespace, pages, err)
		}
		items += len(page.Items)
		if token = page.Metadata.Continue; token == "" {
			return pages, items, nil
		}
	}
	return pages, items, fmt.Errorf("cannot list %s: more than %d pages", namespace, maxPages)
}

// decodeListMeta decodes only the top-level "metadata" member of a list, which the server
// writes before "items", without scanning the items that follow it.
func decodeListMeta(body []byte) (objectMeta, error) {
	var m objectMeta
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return m, fmt.Errorf("cannot decode list metadata: want a JSON object, got %v (%v)", tok, err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return m, fmt.Errorf("cannot decode list metadata: %w", err)
		}
		if key == "metadata" {
			if err := dec.Decode(&m.Metadata); err != nil {
				return m, fmt.Errorf("cannot decode list metadata: %w", err)
			}
			return m, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return m, fmt.Errorf("cannot decode list metadata: %w", err)
		}
	}
	return m, errors.New("cannot decode list metadata: no metadata member")
}

// do sends one request and returns the whole (decompressed) response body, reading it to
// the end so that the connection is reused. Errors: transport errors, and a status other
// than want (the error carries the start of the body, a metav1.Status).
func (c *APIClient) do(ctx context.Context, method, target string, body []byte, want int) ([]byte, error) {
	return c.send(ctx, method, target, "application/json", body, want)
}

// send is do with the request body's Content-Type.
func (c *APIClient) send(ctx context.Context, method, target, contentType string, body []byte, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", "apigen-loadgen")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("cannot read response: %w", err)
	}
	if resp.StatusCode != want {
		const maxShown = 300
		return nil, &statusError{code: resp.StatusCode, msg: fmt.Sprintf("%s %s: status %d, want %d: %s",
			method, req.URL.Path, resp.StatusCode, want, data[:min(len(data), maxShown)])}
	}
	return data, nil
}

// statusError is a response with another status code than the one wanted.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

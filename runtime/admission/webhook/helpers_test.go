package webhook

import (
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/apigen-dev/apigen/runtime/admission/admissiontest"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/certs"
)

// waitForHooks waits until p's cache has n webhooks.
func waitForHooks(t *testing.T, p *base, n int) {
	t.Helper()
	admissiontest.WaitFor(t, fmt.Sprintf("the plugin seeing %d webhooks", n), func() bool { return p.src != nil && len(p.src.list()) == n })
}

// server is a test HTTPS webhook on loopback: answer decides each review's response (UID is
// filled in); reviews records what it received.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	reviews  []*admissionv1.AdmissionRequest
	versions []string // the apiVersion of each review
}

func newServer(t *testing.T, answer func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reviews = append(s.reviews, review.Request)
		s.versions = append(s.versions, review.APIVersion)
		s.mu.Unlock()
		resp := answer(review.Request)
		resp.UID = review.Request.UID
		out, _ := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// calls returns how many reviews the server received.
func (s *server) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reviews)
}

// last returns the last review received.
func (s *server) last() *admissionv1.AdmissionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reviews[len(s.reviews)-1]
}

// lastVersion returns the apiVersion of the last review received.
func (s *server) lastVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versions[len(s.versions)-1]
}

// caBundle is the PEM of the server's certificate.
func (s *server) caBundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// clientConfig calls the server at path.
func (s *server) clientConfig(path string) admregv1.WebhookClientConfig {
	u := s.URL + path
	return admregv1.WebhookClientConfig{URL: &u, CABundle: s.caBundle()}
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// tlsCertificate is the serving certificate of bundle as a server TLS configuration.
func tlsCertificate(bundle *certs.Bundle) (*tls.Config, error) {
	c, err := tls.LoadX509KeyPair(bundle.CertFile(certs.ServingName), bundle.KeyFile(certs.ServingName))
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{c}}, nil
}

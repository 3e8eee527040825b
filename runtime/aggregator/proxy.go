package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// newTransport returns the transport reaching the backend of spec, as kube-aggregator's
// proxy handler builds one per APIService: it presents the front-proxy client certificate
// (nil: none) and verifies the backend's serving certificate with spec.caBundle, with
// rootCAs (nil: the system roots) when the bundle is empty, or not at all with
// spec.insecureSkipTLSVerify. Errors: a caBundle holding no PEM certificate.
func newTransport(spec apiregv1.APIServiceSpec, clientCert *tls.Certificate, rootCAs *x509.CertPool) (*http.Transport, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: rootCAs, InsecureSkipVerify: spec.InsecureSkipTLSVerify} //nolint:gosec // the APIService asks for it, as upstream honours it
	if len(spec.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(spec.CABundle) {
			return nil, errors.New("spec.caBundle holds no PEM encoded certificate")
		}
		cfg.RootCAs = pool
	}
	if clientCert != nil {
		cfg.Certificates = []tls.Certificate{*clientCert}
	}
	return &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true, Proxy: nil,
		TLSHandshakeTimeout: 10 * time.Second, IdleConnTimeout: 90 * time.Second, MaxIdleConnsPerHost: 16}, nil
}

// identityHeaders are the headers a backend reads the caller from; a client's own are
// always removed.
var identityHeaders = []string{"X-Remote-User", "X-Remote-Group", "Impersonate-User", "Impersonate-Group", "Impersonate-Uid", "Authorization"}

// newReverseProxy returns the reverse proxy of one request of APIService name to base, as
// kube-aggregator's proxy handler: the caller's identity in front-proxy headers, the client's
// credentials and identity headers dropped, responses streamed as they come (watches), and a
// backend that cannot be reached a 503 ServiceUnavailable metav1.Status.
func (a *Aggregator) newReverseProxy(name string, base *url.URL, transport http.RoundTripper) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Transport:     transport,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(base)
			pr.Out.Host = base.Host
			for _, h := range identityHeaders {
				pr.Out.Header.Del(h)
			}
			for k := range pr.Out.Header {
				if strings.HasPrefix(k, "X-Remote-Extra-") || strings.HasPrefix(k, "Impersonate-Extra-") {
					pr.Out.Header.Del(k)
				}
			}
			if u, ok := request.UserFrom(pr.In.Context()); ok {
				setIdentity(pr.Out.Header, u)
			}
			pr.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			a.log.Warn("cannot reach the backend", "apiservice", name, "err", err)
			responsewriters.WriteError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err)))
		},
	}
}

// setIdentity names u in front-proxy headers.
func setIdentity(h http.Header, u *request.User) {
	h.Set("X-Remote-User", u.Name)
	for _, g := range u.Groups {
		h.Add("X-Remote-Group", g)
	}
	for k, vs := range u.Extra {
		for _, v := range vs {
			h.Add("X-Remote-Extra-"+url.PathEscape(k), v)
		}
	}
}

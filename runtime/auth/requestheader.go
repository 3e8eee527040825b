package auth

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/runtime/request"
)

// RequestHeaderConfig configures the front-proxy authenticator, as kube-apiserver's
// --requestheader-* flags: an aggregator (or any authenticating proxy) presents a client
// certificate signed by ClientCA, and names the user in request headers.
type RequestHeaderConfig struct {
	// ClientCA verifies the proxy's client certificate (--requestheader-client-ca-file).
	ClientCA *x509.CertPool
	// AllowedNames, when not empty, are the CommonNames a proxy certificate may have
	// (--requestheader-allowed-names); empty allows any certificate ClientCA verifies.
	AllowedNames []string
	// UsernameHeaders are tried in order; the first non-empty one names the user
	// (--requestheader-username-headers, usually ["X-Remote-User"]).
	UsernameHeaders []string
	// GroupHeaders list the user's groups, every value of each (--requestheader-group-headers,
	// usually ["X-Remote-Group"]).
	GroupHeaders []string
	// ExtraHeaderPrefixes prefix headers holding extra attributes: "X-Remote-Extra-Scopes: a"
	// gives extra["scopes"] = ["a"]; keys are lower-cased and percent-decoded
	// (--requestheader-extra-headers-prefix, usually ["X-Remote-Extra-"]).
	ExtraHeaderPrefixes []string
}

// RequestHeader authenticates requests from a front proxy, as k8s.io/apiserver's
// headerrequest authenticator wrapped in its x509 verifier: the client certificate must
// verify against cfg.ClientCA and have an allowed CommonName, and then the user named by the
// headers is the request's user. A request without a client certificate or without a user
// header is not its kind. On success the identity headers are removed from the request, so
// they are never passed on.
func RequestHeader(cfg RequestHeaderConfig) Authenticator {
	verifier := newChainVerifier(cfg.ClientCA)
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		name := firstHeader(r.Header, cfg.UsernameHeaders)
		if name == "" {
			return nil, false, nil
		}
		cert, err := verifier.verify(r)
		if cert == nil || err != nil {
			return nil, false, err
		}
		if len(cfg.AllowedNames) > 0 && !slices.Contains(cfg.AllowedNames, cert.Subject.CommonName) {
			return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", cert.Subject.CommonName)
		}
		u := &request.User{Name: name}
		for _, h := range cfg.GroupHeaders {
			u.Groups = append(u.Groups, r.Header.Values(h)...)
		}
		for key, values := range r.Header {
			for _, prefix := range cfg.ExtraHeaderPrefixes {
				if len(key) <= len(prefix) || !strings.EqualFold(key[:len(prefix)], prefix) {
					continue
				}
				extra := strings.ToLower(key[len(prefix):])
				if unescaped, err := url.PathUnescape(extra); err == nil {
					extra = unescaped
				}
				if u.Extra == nil {
					u.Extra = map[string][]string{}
				}
				u.Extra[extra] = append(u.Extra[extra], values...)
			}
		}
		clearHeaders(r.Header, cfg)
		return u, true, nil
	})
}

// firstHeader returns the first non-empty value among headers.
func firstHeader(h http.Header, headers []string) string {
	for _, name := range headers {
		if v := strings.TrimSpace(h.Get(name)); v != "" {
			return v
		}
	}
	return ""
}

// clearHeaders removes the identity headers cfg reads.
func clearHeaders(h http.Header, cfg RequestHeaderConfig) {
	for _, name := range slices.Concat(cfg.UsernameHeaders, cfg.GroupHeaders) {
		h.Del(name)
	}
	for key := range h {
		for _, prefix := range cfg.ExtraHeaderPrefixes {
			if len(key) > len(prefix) && strings.EqualFold(key[:len(prefix)], prefix) {
				h.Del(key)
			}
		}
	}
}

// Package oidctest is an OpenID Connect issuer for tests: a discovery document and a JWKS
// served over HTTPS on loopback, and ID tokens signed with its current key.
package oidctest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	jose "gopkg.in/go-jose/go-jose.v2"
)

// Issuer is an OpenID Connect issuer on loopback HTTPS (httptest, 127.0.0.1): a discovery
// document at /.well-known/openid-configuration and a JWKS at /jwks holding its current RSA
// signing key only, so that Rotate retires the previous key. Safe for concurrent use.
type Issuer struct {
	srv *httptest.Server
	mu  sync.Mutex
	key *rsa.PrivateKey
	kid string
	n   int
}

// New starts an issuer, stopped at the test's end.
func New(t *testing.T) *Issuer {
	t.Helper()
	is := &Issuer{}
	is.Rotate(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "RS256", Use: "sig"}}}
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	})
	is.srv = httptest.NewTLSServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// URL is the issuer URL (https://127.0.0.1:port).
func (is *Issuer) URL() string { return is.srv.URL }

// CAPEM is the PEM of the issuer's serving certificate, which is self-signed.
func (is *Issuer) CAPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: is.srv.Certificate().Raw}))
}

// Rotate replaces the signing key: the JWKS then serves the new key only.
func (is *Issuer) Rotate(t *testing.T) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.n++
	is.key, is.kid = key, fmt.Sprintf("key-%d", is.n)
}

// Token signs claims with the current key. Defaults: iss the issuer, aud "apigen", sub
// "alice", exp in an hour, iat now.
func (is *Issuer) Token(t *testing.T, claims map[string]any) string {
	t.Helper()
	all := map[string]any{"iss": is.URL(), "aud": "apigen", "sub": "alice",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	for k, v := range claims {
		all[k] = v
	}
	is.mu.Lock()
	key, kid := is.key, is.kid
	is.mu.Unlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

package auth

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// requestWith returns a request that presented cert over TLS (its leaf parsed, as
// crypto/tls fills PeerCertificates).
func requestWith(t *testing.T, cert tls.Certificate) *http.Request {
	t.Helper()
	var peers []*x509.Certificate
	for _, der := range cert.Certificate {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, c)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: peers}
	return r
}

func TestChainVerifierRemembersVerifiedChains(t *testing.T) {
	clientCA, otherCA := newTestCA(t, "client-ca"), newTestCA(t, "other-ca")
	good := requestWith(t, clientCA.issue(t, "carol", nil, x509.ExtKeyUsageClientAuth))
	foreign := requestWith(t, otherCA.issue(t, "carol", nil, x509.ExtKeyUsageClientAuth))
	now := time.Now()
	v := newChainVerifier(clientCA.pool)
	v.now = func() time.Time { return now }

	if c, err := v.verify(good); err != nil || c == nil || c.Subject.CommonName != "carol" {
		t.Fatalf("first verification: %v %v", c, err)
	}
	// With the roots gone, only a remembered verification can accept the chain: the same
	// bytes are accepted, other bytes with the same subject are not.
	v.roots = x509.NewCertPool()
	if c, err := v.verify(good); err != nil || c == nil {
		t.Errorf("verified chain not remembered: %v %v", c, err)
	}
	if c, err := v.verify(foreign); err == nil {
		t.Errorf("a chain of another CA with the same subject was accepted: %v", c.Subject)
	}
	// Past the cache's TTL the chain is verified again (and now fails against empty roots).
	now = now.Add(verifiedChainTTL + time.Second)
	if _, err := v.verify(good); err == nil {
		t.Errorf("a chain was accepted from the cache after %v", verifiedChainTTL)
	}

	// A remembered chain is never accepted past its certificates' NotAfter (an hour here),
	// even inside the TTL.
	now = time.Now()
	v = newChainVerifier(clientCA.pool)
	v.now = func() time.Time { return now }
	if _, err := v.verify(good); err != nil {
		t.Fatal(err)
	}
	now = good.TLS.PeerCertificates[0].NotAfter.Add(time.Second)
	if _, err := v.verify(good); err == nil {
		t.Errorf("an expired certificate was accepted from the cache")
	}
}

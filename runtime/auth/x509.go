package auth

import (
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"

	"github.com/apigen-dev/apigen/runtime/request"
)

// Bounds of a chainVerifier's cache: at most verifiedChainsCacheSize chains are remembered,
// each for at most verifiedChainTTL (and never past a certificate's NotAfter).
const (
	verifiedChainsCacheSize = 1024
	verifiedChainTTL        = 5 * time.Minute
)

// chainVerifier verifies presented client certificate chains against fixed roots for client
// authentication, as k8s.io/apiserver's x509.Verifier, and remembers the chains that
// verified: a chain is keyed by the SHA-256 of every certificate's DER bytes, so a hit is the
// same bytes verified against the same roots, and it is reused only while every certificate
// of it is within its validity period (and for at most verifiedChainTTL), so the answer is
// the one Verify would give. A client that sends many requests over one connection (client-go
// over HTTP/2) then costs one signature check, not one per request; the ECDSA verification
// was the largest single cost of a request over HTTPS. Failures are not remembered. Safe for
// concurrent use.
type chainVerifier struct {
	roots    *x509.CertPool
	verified *cache.LRUExpireCache
	now      func() time.Time
}

// newChainVerifier returns the chainVerifier of roots.
func newChainVerifier(roots *x509.CertPool) *chainVerifier {
	return &chainVerifier{roots: roots, verified: cache.NewLRUExpireCache(verifiedChainsCacheSize), now: time.Now}
}

// verifiedChain is a cached verification: the validity window shared by every certificate
// of the chain, as [notBefore, notAfter].
type verifiedChain struct{ notBefore, notAfter time.Time }

// verify returns the request's leaf client certificate once its chain verifies; nil, nil
// when the request has no client certificate. Errors name the leaf's serial number, subject
// and authority key IDs, as kube-apiserver's.
func (v *chainVerifier) verify(r *http.Request) (*x509.Certificate, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, nil
	}
	certs := r.TLS.PeerCertificates
	h := sha256.New()
	for _, c := range certs {
		h.Write(c.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	now := v.now()
	if e, ok := v.verified.Get(key); ok {
		if w := e.(verifiedChain); !now.Before(w.notBefore) && !now.After(w.notAfter) {
			return certs[0], nil
		}
	}
	opts := x509.VerifyOptions{
		Roots:         v.roots,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		CurrentTime:   now,
	}
	for _, c := range certs[1:] {
		opts.Intermediates.AddCert(c)
	}
	chains, err := certs[0].Verify(opts)
	if err != nil {
		return nil, fmt.Errorf("verifying certificate SN=%s, SKID=%x, AKID=%x failed: %w",
			certs[0].SerialNumber, certs[0].SubjectKeyId, certs[0].AuthorityKeyId, err)
	}
	w := verifiedChain{notAfter: now.Add(verifiedChainTTL)}
	for _, c := range chains[0] {
		if c.NotBefore.After(w.notBefore) {
			w.notBefore = c.NotBefore
		}
		if c.NotAfter.Before(w.notAfter) {
			w.notAfter = c.NotAfter
		}
	}
	v.verified.Add(key, w, w.notAfter.Sub(now))
	return certs[0], nil
}

// ClientCert authenticates x509 client certificates signed by a CA in roots, as
// kube-apiserver's --client-ca-file: the subject's CommonName is the user name and its
// Organizations are the groups. A request without a client certificate is not its kind; a
// certificate that does not verify is an error. Chains that verified are remembered (see
// chainVerifier), so a connection's later requests skip the signature check.
func ClientCert(roots *x509.CertPool) Authenticator {
	v := newChainVerifier(roots)
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		cert, err := v.verify(r)
		if cert == nil || err != nil {
			return nil, false, err
		}
		if cert.Subject.CommonName == "" {
			return nil, false, fmt.Errorf("client certificate SN=%s has no CommonName to name its user", cert.SerialNumber)
		}
		return &request.User{Name: cert.Subject.CommonName, Groups: slices.Clone(cert.Subject.Organization)}, true, nil
	})
}

package auth

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
)

// verifyClientCert verifies the request's client certificate chain against roots for client
// authentication, as k8s.io/apiserver's x509.Authenticator. It returns nil, nil when the
// request has no client certificate.
func verifyClientCert(r *http.Request, roots *x509.CertPool) (*x509.Certificate, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, nil
	}
	certs := r.TLS.PeerCertificates
	opts := x509.VerifyOptions{
		Roots:         roots,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for _, c := range certs[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := certs[0].Verify(opts); err != nil {
		return nil, fmt.Errorf("verifying certificate SN=%s, SKID=%x, AKID=%x failed: %w",
			certs[0].SerialNumber, certs[0].SubjectKeyId, certs[0].AuthorityKeyId, err)
	}
	return certs[0], nil
}

// ClientCert authenticates x509 client certificates signed by a CA in roots, as
// kube-apiserver's --client-ca-file: the subject's CommonName is the user name and its
// Organizations are the groups. A request without a client certificate is not its kind; a
// certificate that does not verify is an error.
func ClientCert(roots *x509.CertPool) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*User, bool, error) {
		cert, err := verifyClientCert(r, roots)
		if cert == nil || err != nil {
			return nil, false, err
		}
		if cert.Subject.CommonName == "" {
			return nil, false, fmt.Errorf("client certificate SN=%s has no CommonName to name its user", cert.SerialNumber)
		}
		return &User{Name: cert.Subject.CommonName, Groups: slices.Clone(cert.Subject.Organization)}, true, nil
	})
}

package certs

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// EnsureCA makes sure dir (created 0700 if missing) holds a CA, as EnsureSelfSigned keeps
// or makes it, and returns its certificate and private key, PEM. Errors: as EnsureSelfSigned.
func EnsureCA(dir string) (certPEM, keyPEM []byte, err error) {
	b, _, _, err := newBundle(dir)
	if err != nil {
		return nil, nil, err
	}
	if certPEM, err = os.ReadFile(b.CertFile(CAName)); err != nil {
		return nil, nil, err
	}
	if keyPEM, err = os.ReadFile(b.KeyFile(CAName)); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

// WriteCA makes certPEM and keyPEM (a CA certificate and its private key) the CA of dir
// (created 0700 if missing). The certificates the old CA signed are reissued by the next
// EnsureSelfSigned. Errors: the pair does not parse, does not match or is not a CA, or a
// file cannot be written.
func WriteCA(dir string, certPEM, keyPEM []byte) error {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("not a certificate and its key: %w", err)
	}
	c, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return err
	}
	if !c.IsCA {
		return errors.New("the certificate is not a CA")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create certificate directory: %w", err)
	}
	if err := keyutil.WriteKey(filepath.Join(dir, CAName+".key"), keyPEM); err != nil {
		return fmt.Errorf("cannot write the CA key: %w", err)
	}
	return cert.WriteCert(filepath.Join(dir, CAName+".crt"), certPEM)
}

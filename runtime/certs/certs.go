package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// File names in a certificate directory; each certificate has a <name>.crt and <name>.key.
const (
	CAName      = "ca"
	ServingName = "apiserver"
	AdminName   = "admin"
)

// AdminUser and AdminGroup are the admin certificate's CommonName and Organization: the
// group kube-apiserver's bootstrap binds to cluster-admin.
const (
	AdminUser  = "apigen-admin"
	AdminGroup = "system:masters"
)

// Validity of the leaves EnsureSelfSigned makes; its CA is cert.NewSelfSignedCACert's, valid
// for ten years.
const (
	leafValidity = 365 * 24 * time.Hour
	// renewBefore is how long before expiry a leaf is made again.
	renewBefore = 30 * 24 * time.Hour
)

// Bundle names the files EnsureSelfSigned wrote or found in Dir.
type Bundle struct {
	// Dir is the certificate directory.
	Dir string
	// CAPool holds the CA certificate, for clients of the server and to verify client
	// certificates (--client-ca-file).
	CAPool *x509.CertPool
}

// CertFile returns the path of name's certificate, e.g. CertFile(ServingName).
func (b *Bundle) CertFile(name string) string { return filepath.Join(b.Dir, name+".crt") }

// KeyFile returns the path of name's private key.
func (b *Bundle) KeyFile(name string) string { return filepath.Join(b.Dir, name+".key") }

// EnsureSelfSigned makes sure dir (created 0700 if missing) holds a CA, a serving certificate
// for hosts (DNS names) and ips signed by it, and an admin client certificate (AdminUser in
// AdminGroup) signed by it, all PEM, keys 0600. What is there and still good is reused: the
// CA while it is valid, a leaf while it is signed by that CA, names what it must name and is
// more than 30 days from expiry, so a restart keeps the certificates kubeconfigs trust.
// Errors: the directory or a file cannot be read or written, or key generation fails.
func EnsureSelfSigned(dir string, hosts []string, ips []net.IP) (*Bundle, error) {
	b, ca, caKey, err := newBundle(dir)
	if err != nil {
		return nil, err
	}
	serving := &x509.Certificate{
		Subject:     pkix.Name{CommonName: ServingName},
		DNSNames:    hosts,
		IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	admin := &x509.Certificate{
		Subject:     pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for name, tmpl := range map[string]*x509.Certificate{ServingName: serving, AdminName: admin} {
		if err := b.ensureLeaf(name, tmpl, ca, caKey); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// newBundle creates dir (0700) when missing and makes sure it holds a CA, which it returns
// with its key and a Bundle whose CAPool holds it.
func newBundle(dir string) (*Bundle, *x509.Certificate, crypto.Signer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("cannot create certificate directory: %w", err)
	}
	b := &Bundle{Dir: dir}
	ca, caKey, err := b.ensureCA()
	if err != nil {
		return nil, nil, nil, err
	}
	b.CAPool = x509.NewCertPool()
	b.CAPool.AddCert(ca)
	return b, ca, caKey, nil
}

// ensureCA loads the CA, or makes a new one when it is missing, unreadable or expiring.
func (b *Bundle) ensureCA() (*x509.Certificate, crypto.Signer, error) {
	if ca, key, err := b.load(CAName); err == nil && time.Now().Add(renewBefore).Before(ca.NotAfter) && ca.IsCA {
		return ca, key, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot generate the CA key: %w", err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: fmt.Sprintf("apigen-ca@%d", time.Now().Unix())}, key)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot make the CA certificate: %w", err)
	}
	if err := b.write(CAName, ca, key); err != nil {
		return nil, nil, err
	}
	return ca, key, nil
}

// ensureLeaf keeps name's certificate when it is signed by ca, names what tmpl names and is
// not expiring; otherwise it issues a new one from tmpl.
func (b *Bundle) ensureLeaf(name string, tmpl, ca *x509.Certificate, caKey crypto.Signer) error {
	if c, _, err := b.load(name); err == nil && good(c, tmpl, ca) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("cannot generate the %s key: %w", name, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	leaf := *tmpl
	leaf.SerialNumber = serial
	leaf.NotBefore = time.Now().Add(-time.Hour).UTC()
	leaf.NotAfter = time.Now().Add(leafValidity).UTC()
	leaf.KeyUsage = x509.KeyUsageDigitalSignature
	leaf.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, &leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("cannot sign the %s certificate: %w", name, err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	return b.write(name, c, key)
}

// good reports whether c is signed by ca, names what tmpl names and is not expiring.
func good(c, tmpl, ca *x509.Certificate) bool {
	if c.CheckSignatureFrom(ca) != nil || !time.Now().Add(renewBefore).Before(c.NotAfter) {
		return false
	}
	if c.Subject.CommonName != tmpl.Subject.CommonName || !slices.Equal(c.Subject.Organization, tmpl.Subject.Organization) ||
		!slices.Equal(c.ExtKeyUsage, tmpl.ExtKeyUsage) {
		return false
	}
	for _, h := range tmpl.DNSNames {
		if !slices.Contains(c.DNSNames, h) {
			return false
		}
	}
	for _, ip := range tmpl.IPAddresses {
		if !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

// load reads name's certificate and key and checks that they match.
func (b *Bundle) load(name string) (*x509.Certificate, crypto.Signer, error) {
	pair, err := tls.LoadX509KeyPair(b.CertFile(name), b.KeyFile(name))
	if err != nil {
		return nil, nil, err
	}
	c, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, nil, err
	}
	key, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, nil, errors.New("the private key cannot sign")
	}
	return c, key, nil
}

// write writes c and key as name.crt (0644) and name.key (0600).
func (b *Bundle) write(name string, c *x509.Certificate, key crypto.PrivateKey) error {
	certPEM, err := cert.EncodeCertificates(c)
	if err != nil {
		return err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	if err := keyutil.WriteKey(b.KeyFile(name), keyPEM); err != nil {
		return fmt.Errorf("cannot write %s: %w", b.KeyFile(name), err)
	}
	if err := cert.WriteCert(b.CertFile(name), certPEM); err != nil {
		return fmt.Errorf("cannot write %s: %w", b.CertFile(name), err)
	}
	return nil
}

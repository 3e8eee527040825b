package certs

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
)

// File names of the certificates EnsureEtcd makes, besides its CAName.
const (
	// EtcdServerName is the embedded etcd member's certificate, for its client and peer URLs.
	EtcdServerName = "server"
	// EtcdClientName is the client certificate etcdctl (or any other client) presents.
	EtcdClientName = "client"
)

// EtcdClientUser is the CommonName of the etcd client certificate.
const EtcdClientUser = "apigen-etcd-client"

// EnsureEtcd makes sure dir (created 0700 if missing) holds a CA of its own, separate from
// the API server's (as kubeadm keeps etcd's), a member certificate for localhost, 127.0.0.1
// and ::1 usable as server and as client (etcd's peer connections are both), and a client
// certificate, all signed by that CA, PEM, keys 0600, reused while good as EnsureSelfSigned
// reuses its own. An embedded etcd member that requires certificates signed by the CA then
// serves only the holders of dir's keys. Errors: as EnsureSelfSigned's.
func EnsureEtcd(dir string) (*Bundle, error) {
	b, ca, caKey, err := newBundle(dir)
	if err != nil {
		return nil, err
	}
	member := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "apigen-etcd"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	client := &x509.Certificate{
		Subject:     pkix.Name{CommonName: EtcdClientUser},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for name, tmpl := range map[string]*x509.Certificate{EtcdServerName: member, EtcdClientName: client} {
		if err := b.ensureLeaf(name, tmpl, ca, caKey); err != nil {
			return nil, err
		}
	}
	return b, nil
}

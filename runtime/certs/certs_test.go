package certs

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/request"
)

var loopback = []net.IP{net.ParseIP("127.0.0.1")}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestServeWithSelfSigned serves HTTPS with the serving certificate and authenticates the
// admin certificate with the CA: a client trusting only the CA reaches the server, and the
// server sees the admin user in system:masters.
func TestServeWithSelfSigned(t *testing.T) {
	b, err := EnsureSelfSigned(t.TempDir(), []string{"localhost"}, loopback)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := tls.LoadX509KeyPair(b.CertFile(ServingName), b.KeyFile(ServingName))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(auth.WithAuthentication(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		_ = json.NewEncoder(w).Encode(u)
	}), auth.ClientCert(b.CAPool), nil, nil))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serving}, ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	admin, err := tls.LoadX509KeyPair(b.CertFile(AdminName), b.KeyFile(AdminName))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: b.CAPool, Certificates: []tls.Certificate{admin}}}}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatalf("HTTPS with the CA as the only root: %v", err)
	}
	defer resp.Body.Close()
	var u request.User
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if u.Name != AdminUser || !u.InGroup(AdminGroup) {
		t.Errorf("admin certificate authenticates as %+v, want %s in %s", u, AdminUser, AdminGroup)
	}
	if info, err := os.Stat(b.KeyFile(ServingName)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("serving key mode: %v %v", info.Mode(), err)
	}
}

// TestReuse checks that a restart keeps good certificates and replaces what is broken or no
// longer covers the server's addresses, keeping the CA.
func TestReuse(t *testing.T) {
	dir := t.TempDir()
	b, err := EnsureSelfSigned(dir, nil, loopback)
	if err != nil {
		t.Fatal(err)
	}
	ca, serving, admin := read(t, b.CertFile(CAName)), read(t, b.CertFile(ServingName)), read(t, b.CertFile(AdminName))

	if _, err := EnsureSelfSigned(dir, nil, loopback); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ca, read(t, b.CertFile(CAName))) || !bytes.Equal(serving, read(t, b.CertFile(ServingName))) ||
		!bytes.Equal(admin, read(t, b.CertFile(AdminName))) {
		t.Fatal("a restart replaced good certificates")
	}

	// A new address: the serving certificate is issued again, by the same CA.
	more := append([]net.IP{net.ParseIP("::1")}, loopback...)
	if _, err := EnsureSelfSigned(dir, nil, more); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ca, read(t, b.CertFile(CAName))) {
		t.Error("the CA changed when only the serving addresses did")
	}
	newServing := read(t, b.CertFile(ServingName))
	if bytes.Equal(serving, newServing) {
		t.Fatal("the serving certificate was kept though it does not name ::1")
	}
	pair, err := tls.X509KeyPair(newServing, read(t, b.KeyFile(ServingName)))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: b.CAPool, DNSName: host}); err != nil {
			t.Errorf("serving certificate for %s: %v", host, err)
		}
	}

	// A broken key: the pair is made again.
	if err := os.WriteFile(b.KeyFile(AdminName), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureSelfSigned(dir, nil, more); err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(b.CertFile(AdminName), b.KeyFile(AdminName)); err != nil {
		t.Errorf("admin pair after repair: %v", err)
	}
}

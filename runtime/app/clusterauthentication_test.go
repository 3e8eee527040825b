package app

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/cert"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestClusterAuthenticationData checks the ConfigMap data of each configuration: the client
// CAs of --client-ca-file and of the self-signed CA (each once), the request-header keys only
// with --requestheader-client-ca-file, empty flags as "[]".
func TestClusterAuthenticationData(t *testing.T) {
	dir := t.TempDir()
	own, clients, proxy := selfSigned(t, dir, "own"), selfSigned(t, dir, "clients"), selfSigned(t, dir, "proxy")
	caOf := func(b *certs.Bundle) []*x509.Certificate {
		cs, err := cert.CertsFromFile(b.CertFile(certs.CAName))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// --client-ca-file holds the clients' CA twice and the server's own: each is written once.
	both := filepath.Join(dir, "both.crt")
	var pemBytes []byte
	for _, f := range []string{clients.CertFile(certs.CAName), clients.CertFile(certs.CAName), own.CertFile(certs.CAName)} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pemBytes = append(pemBytes, b...)
	}
	if err := os.WriteFile(both, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	parse := func(s string) []*x509.Certificate {
		cs, err := cert.ParseCertsPEM([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	sameCerts := func(what string, got, want []*x509.Certificate) {
		t.Helper()
		if !slices.EqualFunc(got, want, func(a, b *x509.Certificate) bool { return bytes.Equal(a.Raw, b.Raw) }) {
			t.Errorf("%s: %d certificates, want %d (or others)", what, len(got), len(want))
		}
	}

	// The self-signed CA only, no front proxy.
	data, err := clusterAuthenticationData(&SecureOptions{}, &security{caFile: own.CertFile(certs.CAName)})
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 1 {
		t.Errorf("keys %v, want client-ca-file only", data)
	}
	sameCerts("client-ca-file", parse(data[ClientCAKey]), caOf(own))

	// --client-ca-file and the self-signed CA, with a front proxy whose allowed names are empty.
	o := newSecureOptions()
	o.ClientCAFile, o.RequestHeaderClientCAFile = both, proxy.CertFile(certs.CAName)
	o.RequestHeaderUsernameHeaders = []string{"X-Remote-User", "X-User"}
	data, err = clusterAuthenticationData(&o, &security{caFile: own.CertFile(certs.CAName)})
	if err != nil {
		t.Fatal(err)
	}
	sameCerts("client-ca-file", parse(data[ClientCAKey]), append(caOf(clients), caOf(own)...))
	sameCerts("requestheader-client-ca-file", parse(data[RequestHeaderClientCAKey]), caOf(proxy))
	delete(data, ClientCAKey)
	delete(data, RequestHeaderClientCAKey)
	want := map[string]string{
		RequestHeaderUsernameHeadersKey:    `["X-Remote-User","X-User"]`,
		RequestHeaderGroupHeadersKey:       `["X-Remote-Group"]`,
		RequestHeaderExtraHeadersPrefixKey: `["X-Remote-Extra-"]`,
		RequestHeaderAllowedNamesKey:       `[]`,
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("request-header keys (-want +got):\n%s", diff)
	}

	// A serving certificate given (no self-signed CA) and no client CA: nothing to publish.
	if data, err := clusterAuthenticationData(&SecureOptions{}, &security{}); err != nil || len(data) != 0 {
		t.Errorf("no CAs: %v, %v", data, err)
	}
	if _, err := clusterAuthenticationData(&SecureOptions{ClientCAFile: filepath.Join(dir, "missing.crt")}, &security{}); err == nil {
		t.Error("a missing --client-ca-file was accepted")
	}
}

// selfSigned returns a self-signed CA and its certificates in dir/name (certs.EnsureSelfSigned).
func selfSigned(t *testing.T, dir, name string) *certs.Bundle {
	t.Helper()
	b, err := certs.EnsureSelfSigned(filepath.Join(dir, name), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package app

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestShareCA checks that replicas starting together on one etcd end up with one CA, the
// first stored; that a replica whose data directory has another CA takes the shared one;
// and that certificates issued after it chain to it.
func TestShareCA(t *testing.T) {
	client, _ := etcdtest.Run(t)
	ctx := context.Background()
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	errs := make([]error, len(dirs))
	for i, dir := range dirs {
		wg.Go(func() { errs[i] = shareCA(ctx, client, "/registry", dir) })
	}
	wg.Wait()
	read := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, certs.CAName+".crt"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i, dir := range dirs {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		if !bytes.Equal(read(dir), read(dirs[0])) {
			t.Errorf("replica %d has another CA than replica 0", i)
		}
	}

	// A data directory that made its own CA before (a replica started alone once).
	late := t.TempDir()
	if _, err := certs.EnsureSelfSigned(late, []string{"localhost"}, nil); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(read(late), read(dirs[0])) {
		t.Fatal("two CAs made apart are equal")
	}
	if err := shareCA(ctx, client, "/registry", late); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(late), read(dirs[0])) {
		t.Error("the late replica kept its own CA")
	}
	b, err := certs.EnsureSelfSigned(late, []string{"localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := os.ReadFile(b.CertFile(certs.ServingName))
	if err != nil {
		t.Fatal(err)
	}
	other, err := certs.EnsureSelfSigned(dirs[1], []string{"localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !verifies(t, other, serving) {
		t.Error("the late replica's serving certificate does not chain to the shared CA")
	}
}

// verifies reports whether certPEM chains to b's CA.
func verifies(t *testing.T, b *certs.Bundle, certPEM []byte) bool {
	t.Helper()
	c, err := parseCert(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Verify(x509.VerifyOptions{Roots: b.CAPool})
	return err == nil
}

// parseCert parses the first PEM certificate of data.
func parseCert(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

package app

import (
	"context"
	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdctlFlags matches the etcdctl command the readiness line gives for the embedded etcd.
var etcdctlFlags = regexp.MustCompile(`etcdctl --endpoints=(\S+) --cacert=(\S+) --cert=(\S+) --key=(\S+)\)`)

// TestConnectEtcdEmbeddedInProcess checks the single-machine wiring: with no --etcd-servers
// the server talks to its embedded member in process (a client with no endpoints to dial);
// the member's client URL refuses a client without the certificate the readiness line names
// (no local process may read the objects or rewrite RBAC), while a client with the printed
// etcdctl settings reads what the server wrote; Close stops everything without reporting the
// in-process client's own cancellation.
func TestConnectEtcdEmbeddedInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd members; skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := connectEtcd(ctx, "", nil, EtcdTLSFiles{}, t.TempDir(), embeddedEtcd{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = conn.Close()
		}
	})
	if eps := conn.client.Endpoints(); len(eps) != 0 {
		t.Errorf("server's etcd client dials %v; want the in-process client (no endpoints)", eps)
	}
	m := etcdctlFlags.FindStringSubmatch(conn.describe)
	if m == nil || !strings.HasPrefix(m[1], "https://127.0.0.1:") {
		t.Fatalf("describe = %q; want an etcdctl command with an https loopback endpoint and the client certificate", conn.describe)
	}
	put, err := conn.client.Put(ctx, "/registry/probe", "in-process")
	if err != nil {
		t.Fatalf("in-process put: %v", err)
	}

	// Without credentials: plain HTTP, and TLS without a client certificate, both fail.
	for name, cfg := range map[string]clientv3.Config{
		"plain":               {Endpoints: []string{strings.Replace(m[1], "https://", "http://", 1)}},
		"TLS, no client cert": tlsClient(t, m[1], transport.TLSInfo{TrustedCAFile: m[2]}),
	} {
		cfg.DialTimeout, cfg.Logger = 2*time.Second, zap.NewNop()
		if c, err := clientv3.New(cfg); err == nil {
			gctx, gcancel := context.WithTimeout(ctx, 2*time.Second)
			_, err = c.Get(gctx, "/registry/probe")
			gcancel()
			c.Close()
			if err == nil {
				t.Errorf("%s: a client without the certificate read the embedded etcd", name)
			}
		}
	}

	// etcdctl's settings, as printed.
	printed := tlsClient(t, m[1], transport.TLSInfo{TrustedCAFile: m[2], CertFile: m[3], KeyFile: m[4]})
	printed.DialTimeout, printed.Logger = 5*time.Second, zap.NewNop()
	remote, err := clientv3.New(printed)
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	got, err := remote.Get(ctx, "/registry/probe")
	if err != nil {
		t.Fatalf("get with the printed etcdctl settings: %v", err)
	}
	if len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "in-process" || got.Kvs[0].ModRevision != put.Header.Revision {
		t.Fatalf("read over gRPC %v; want value %q at revision %d", got.Kvs, "in-process", put.Header.Revision)
	}

	closed = true
	if err := conn.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := conn.client.Get(ctx, "/registry/probe"); err == nil {
		t.Error("in-process client still answers after Close")
	}
}

// tlsClient is a clientv3 configuration for endpoint with info's TLS settings.
func tlsClient(t *testing.T, endpoint string, info transport.TLSInfo) clientv3.Config {
	t.Helper()
	tlsConfig, err := info.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	return clientv3.Config{Endpoints: []string{endpoint}, TLS: tlsConfig}
}

// TestConnectEtcdPlainClientURL: --embedded-etcd-client-url=http://... serves etcdctl without
// authentication, as asked, and the readiness line says so.
func TestConnectEtcdPlainClientURL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd members; skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := connectEtcd(ctx, "", nil, EtcdTLSFiles{}, t.TempDir(), embeddedEtcd{clientURL: "http://127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !strings.Contains(conn.describe, "no authentication") {
		t.Errorf("describe = %q; want it to say the client URL has no authentication", conn.describe)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: conn.embedded.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Put(ctx, "/registry/probe", "plain"); err != nil {
		t.Errorf("plain client of a member asked to serve plain HTTP: %v", err)
	}
}

// TestConnectEtcdServersTLS: --etcd-servers with --etcd-cafile, --etcd-certfile and
// --etcd-keyfile reaches a member that requires client certificates; without the client
// certificate, or trusting another CA, the start fails at once naming the flags; a dead
// first endpoint is failed over.
func TestConnectEtcdServersTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd members; skipped in -short mode")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pki, err := certs.EnsureEtcd(filepath.Join(t.TempDir(), "pki"))
	if err != nil {
		t.Fatal(err)
	}
	member, err := embedded.Start(ctx, embedded.Config{DataDir: filepath.Join(t.TempDir(), "etcd"), LogLevel: embeddedLogLevel,
		TLS: &embedded.TLSFiles{CertFile: pki.CertFile(certs.EtcdServerName), KeyFile: pki.KeyFile(certs.EtcdServerName), TrustedCAFile: pki.CertFile(certs.CAName)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = member.Close() })
	other, err := certs.EnsureEtcd(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	good := EtcdTLSFiles{CAFile: pki.CertFile(certs.CAName), CertFile: pki.CertFile(certs.EtcdClientName), KeyFile: pki.KeyFile(certs.EtcdClientName)}
	dead := "https://" + freeLoopbackAddr(t)

	conn, err := connectEtcd(ctx, "", []string{dead, member.Endpoints()[0]}, good, t.TempDir(), embeddedEtcd{})
	if err != nil {
		t.Fatalf("connect with the client certificate, first endpoint dead: %v", err)
	}
	if _, err := conn.client.Put(ctx, "/registry/probe", "tls"); err != nil {
		t.Errorf("put over TLS: %v", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	for name, files := range map[string]EtcdTLSFiles{
		"no client certificate": {CAFile: good.CAFile},
		"another CA":            {CAFile: other.CertFile(certs.CAName), CertFile: good.CertFile, KeyFile: good.KeyFile},
	} {
		start := time.Now()
		conn, err := connectEtcd(ctx, "", member.Endpoints(), files, t.TempDir(), embeddedEtcd{})
		if err == nil {
			conn.Close()
			t.Errorf("%s: connected", name)
			continue
		}
		if !strings.Contains(err.Error(), "--etcd-cafile") || !strings.Contains(err.Error(), "--etcd-certfile") {
			t.Errorf("%s: error %q does not name the TLS flags", name, err)
		}
		if took := time.Since(start); took > etcdDialTimeout+5*time.Second {
			t.Errorf("%s: failed after %s", name, took)
		}
	}
	if _, err := connectEtcd(ctx, "", member.Endpoints(), EtcdTLSFiles{CAFile: filepath.Join(t.TempDir(), "missing.crt")}, t.TempDir(), embeddedEtcd{}); err == nil ||
		!strings.Contains(err.Error(), "--etcd-cafile") {
		t.Errorf("a missing CA file: %v; want an error naming --etcd-cafile", err)
	}
}

// freeLoopbackAddr returns a loopback address nothing listens on.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

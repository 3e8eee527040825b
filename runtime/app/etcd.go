package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
)

// etcdDialTimeout bounds connecting to etcd.
const etcdDialTimeout = 10 * time.Second

// embeddedLogLevel is the embedded member's zap level. etcd 3.6 logs harmless "error" lines on
// every start ("failed to update storage version") and stop ("setting up serving ... closed");
// real failures still reach the user as errors from embedded.Start and the etcd health check.
const embeddedLogLevel = "fatal"

// etcdConn is the server's etcd: a client, and the embedded member when one was started.
type etcdConn struct {
	client   *clientv3.Client
	embedded *embedded.Server
	// describe says which etcd is used in the readiness line: "embedded, <dir>, client URL
	// <url>" and how etcdctl reaches it, or the URLs.
	describe string
	// beforeClose are called, in order, when Close starts (the watch caches stop).
	beforeClose []func()
	// transformers, when not nil, are the value transformers of each resource
	// (--encryption-provider-config, loadEncryption).
	transformers func(schema.GroupResource) value.Transformer
	// kmsCheck, when not nil, is the "kms-providers" health check of the KMS plugins the
	// encryption configuration names.
	kmsCheck server.HealthChecker
	// stop, when not nil, stops the --storage-backend storage after the client closes.
	stop func() error
}

// connectEtcd starts the in-process storage backend (StorageBackends) when backend is not
// "etcd3" (nor "") and connects to it; else it connects to servers (connectEtcdServers), or, when servers is empty, starts the embedded etcd in
// <dataDir>/etcd and talks to it in process (embedded.Server.Client): a single-machine server
// pays for no gRPC round trip to its own member. The member's client URL is for etcdctl and
// other clients. By default (clientURL "") it is https on a free loopback port and, as its peer
// URL, requires a client certificate signed by the CA in <dataDir>/pki/etcd (certs.EnsureEtcd),
// so that no other local process reads or rewrites the objects (RBAC bindings included);
// clientURL "https://127.0.0.1:<port>" picks the port, "http://127.0.0.1:<port>" serves
// without authentication, as asked. dial are extra gRPC dial options of the client of
// servers (tracing's); the in-process client of the embedded member makes no gRPC calls.
// member.snapshotCount and member.quotaBackendBytes bound the embedded member (0: etcd's
// defaults).
func connectEtcd(ctx context.Context, backend string, servers []string, files EtcdTLSFiles, dataDir string, member embeddedEtcd, dial ...grpc.DialOption) (*etcdConn, error) {
	if backend != "" && backend != etcd3Backend {
		return startStorageBackend(ctx, backend, dataDir)
	}
	if len(servers) > 0 {
		return connectEtcdServers(ctx, servers, files, dial...)
	}
	dir := filepath.Join(dataDir, "etcd")
	clientURL := member.clientURL
	cfg := embedded.Config{DataDir: dir, LogLevel: embeddedLogLevel, ClientURL: clientURL,
		SnapshotCount: member.snapshotCount, QuotaBackendBytes: member.quotaBackendBytes}
	var pki *certs.Bundle
	if !strings.HasPrefix(clientURL, "http://") {
		var err error
		if pki, err = certs.EnsureEtcd(filepath.Join(dataDir, "pki", "etcd")); err != nil {
			return nil, fmt.Errorf("cannot make the embedded etcd's certificates: %w", err)
		}
		cfg.TLS = &embedded.TLSFiles{CertFile: pki.CertFile(certs.EtcdServerName), KeyFile: pki.KeyFile(certs.EtcdServerName),
			TrustedCAFile: pki.CertFile(certs.CAName)}
	}
	server, err := embedded.Start(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot start embedded etcd: %w", err)
	}
	endpoints := strings.Join(server.Endpoints(), ",")
	describe := fmt.Sprintf("embedded, %s, client URL %s", dir, endpoints)
	if pki != nil {
		describe += fmt.Sprintf(" (mutual TLS: etcdctl --endpoints=%s --cacert=%s --cert=%s --key=%s)", endpoints,
			pki.CertFile(certs.CAName), pki.CertFile(certs.EtcdClientName), pki.KeyFile(certs.EtcdClientName))
	} else {
		describe += " (no authentication: any local process may read and write it)"
	}
	return &etcdConn{client: server.Client(), embedded: server, describe: describe}, nil
}

// embeddedEtcd configures the embedded member: the URL it serves other clients on (see
// connectEtcd), and its etcd --snapshot-count and --quota-backend-bytes (0: etcd's).
type embeddedEtcd struct {
	clientURL         string
	snapshotCount     uint64
	quotaBackendBytes int64
}

// Close calls beforeClose, closes the client, then stops the embedded member if there is one.
func (c *etcdConn) Close() error {
	for _, f := range c.beforeClose {
		f()
	}
	err := c.client.Close()
	if c.stop != nil {
		err = errors.Join(err, c.stop())
	}
	if c.embedded != nil {
		// The in-process client's Close reports the cancellation of its own context.
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		err = errors.Join(err, c.embedded.Close())
	}
	if err != nil {
		return fmt.Errorf("cannot close etcd: %w", err)
	}
	return nil
}

// EtcdTLSFiles secure the connection to --etcd-servers: CAFile verifies the members'
// certificates (empty: the system's roots), CertFile and KeyFile are the client certificate
// they may require. All are PEM files; the zero value connects without TLS (https
// endpoints then use the system's roots).
type EtcdTLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// connectEtcdServers connects to servers, failing over between them as clientv3's balancer
// does, over TLS when files names any file, and checks within etcdDialTimeout that one
// answers, so that a wrong CA, a missing client certificate or an unreachable cluster is a
// start-up error naming what to check rather than a server that never gets ready. dial are
// extra gRPC dial options (tracing's); etcd3.TrackSends is always added, so that a write
// that never reached etcd is told from one whose answer was lost.
func connectEtcdServers(ctx context.Context, servers []string, files EtcdTLSFiles, dial ...grpc.DialOption) (*etcdConn, error) {
	dial = append([]grpc.DialOption{etcd3.TrackSends()}, dial...)
	cfg := clientv3.Config{Endpoints: servers, DialTimeout: etcdDialTimeout, DialOptions: dial}
	if files != (EtcdTLSFiles{}) {
		info := transport.TLSInfo{TrustedCAFile: files.CAFile, CertFile: files.CertFile, KeyFile: files.KeyFile}
		tlsConfig, err := info.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("cannot read the etcd TLS files (--etcd-cafile, --etcd-certfile, --etcd-keyfile): %w", err)
		}
		cfg.TLS = tlsConfig
	}
	list := strings.Join(servers, ",")
	client, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to etcd %s: %w", list, err)
	}
	probe, cancel := context.WithTimeout(ctx, etcdDialTimeout)
	defer cancel()
	if _, err := client.Get(probe, "/", clientv3.WithCountOnly(), clientv3.WithLimit(1)); err != nil {
		client.Close()
		hint := "is it running and reachable?"
		if strings.Contains(list, "https://") || cfg.TLS != nil {
			hint = "is it running and reachable, and do --etcd-cafile (the members' CA) and --etcd-certfile/--etcd-keyfile (a client certificate they accept) match it?"
		}
		return nil, fmt.Errorf("cannot reach etcd %s within %s: %w; %s", list, etcdDialTimeout, err, hint)
	}
	return &etcdConn{client: client, describe: list}, nil
}

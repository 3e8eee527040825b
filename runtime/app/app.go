package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/gcpacer"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
)

// GroupBuilder builds one API group over the server's shared scheme and storage; a generated
// install package's NewAPIGroupInfo is one.
type GroupBuilder func(scheme *runtime.Scheme, storage registry.StorageFactory) (*registry.APIGroupInfo, error)

// The server's storage factory is etcd3's; this assertion keeps it a registry.StorageFactory.
var _ registry.StorageFactory = (*etcd3.StorageFactory)(nil)

// Main runs the API server named name with args (flags below) until SIGINT/SIGTERM; returns the exit code.
// It is Run with a context that those signals end, in a process whose garbage collector is
// paced by gcpacer once the server serves (gcpacer.StartServer): up to
// gcpacer.DefaultHeadroom of heap growth under load, little at rest, gcpacer.StartupPercent
// while it starts (unless GOGC or GOMEMLIMIT is set; see package gcpacer).
func Main(name string, args []string, stdout, stderr io.Writer, groups ...GroupBuilder) int {
	gcpacer.StartServer(gcpacer.DefaultHeadroom)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, name, args, stdout, stderr, groups...)
}

// Run runs the API server named name with args until ctx ends, then shuts it down
// gracefully. It returns the process exit code: 0 after a clean shutdown or --help, 1 when
// the server fails, 2 for bad flags. Errors are written to stderr, the readiness line to
// stdout.
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer, groups ...GroupBuilder) int {
	opts := NewOptions()
	var runErr error
	cmd := &cobra.Command{
		Use:   name,
		Short: name + " serves its API groups, backed by etcd, to kubectl and client-go",
		Long: name + ` serves its API groups, backed by an embedded etcd in --data-dir or by --etcd-servers.

It serves HTTPS with a self-signed certificate in <data-dir>/pki (or --tls-cert-file),
authenticates clients (client certificates, tokens, front proxy) and authorizes them
(--authorization-mode, RBAC by default), and writes a kubeconfig for kubectl to
<data-dir>/kubeconfig that trusts the CA and presents the admin certificate. --plain-http
serves plain HTTP on a loopback address without authentication instead.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return err
			}
			opts.applyGCMemoryLimit()
			runErr = serve(cmd.Context(), name, opts, stdout, stderr, groups)
			return nil
		},
	}
	opts.AddFlags(cmd.Flags())
	addMainFlags(cmd.Flags())
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	if err := cmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, runErr)
		return 1
	}
	return 0
}

// serve runs the server as the package doc describes until ctx ends.
func serve(ctx context.Context, name string, opts *Options, stdout, stderr io.Writer, groups []GroupBuilder) (err error) {
	level, _ := opts.level()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// apimachinery's and client-go's own lines (reflectors, leader election, CEL) go through
	// klog: route them to the same handler, in the same format and at the same level.
	routeKlog(log.Handler())
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return fmt.Errorf("cannot resolve --data-dir: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("cannot create data directory: %w", err)
	}
	unlock, err := lockDataDir(dataDir)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	tracer, err := startTracing(ctx, name, &opts.TracingOptions)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracer.Close()) }()
	member := embeddedEtcd{clientURL: opts.EmbeddedEtcdClientURL, snapshotCount: opts.EmbeddedEtcdSnapshotCount,
		quotaBackendBytes: opts.EmbeddedEtcdQuotaBackendBytes}
	etcd, err := connectEtcd(ctx, opts.StorageBackend, opts.EtcdServers, opts.EtcdTLS, dataDir, member, tracer.etcdDialOptions()...)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, etcd.Close()) }()

	var share func(dir string) error
	if len(opts.EtcdServers) > 0 { // replicas may share the etcd: they share the CA too
		share = func(dir string) error { return shareCA(ctx, etcd.client, opts.EtcdPrefix, dir) }
	}
	sec, err := buildSecurity(ctx, &opts.SecureOptions, &opts.DelegatingOptions, dataDir, opts.BindAddress, log, share)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sec.Close()) }()
	// KMS plugins' status polls run as long as the server does.
	encCtx, stopEncryption := context.WithCancel(ctx)
	defer stopEncryption()
	if etcd.transformers, etcd.kmsCheck, err = loadEncryption(encCtx, opts.EncryptionProviderConfig); err != nil {
		return err
	}
	lb := &loopback{}
	srv, err := buildServer(name, log, opts, etcd, sec, lb, tracer, groups)
	if err != nil {
		return err
	}
	prepared, err := srv.PrepareRun()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(opts.BindAddress, strconv.Itoa(opts.SecurePort)))
	if err != nil {
		return fmt.Errorf("cannot listen: %w", err)
	}
	lb.set(ln.Addr(), sec)
	url, mode := "http://"+ln.Addr().String(), "plain HTTP, no authentication"
	if sec.tls != nil {
		ln = tls.NewListener(ln, sec.tls)
		url, mode = "https://"+ln.Addr().String(), "HTTPS"
	}
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- prepared.Serve(serveCtx, ln) }()
	select {
	case err := <-done:
		return err
	case <-prepared.Ready():
	}
	// Start-up (schemes, OpenAPI, the caches' first lists) leaves garbage the GC pacer's
	// headroom would keep resident for a long time: collect it and return it to the OS once,
	// and let the pacer (held at gcpacer.StartupPercent while the server started) pace from now.
	gcpacer.Started()
	kubeconfig := filepath.Join(dataDir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, name, url, sec); err != nil {
		stop()
		return errors.Join(err, <-done)
	}
	fmt.Fprintf(stdout, "%s: serving on %s (%s; etcd: %s); kubectl: export KUBECONFIG=%s\n",
		name, url, mode, etcd.describe, kubeconfig)
	return <-done
}

// buildServer builds the server's groups and the built-in APIs over one scheme by walking the
// table builtins (builtin.go), and assembles the delegation chain around them (buildChain).
func buildServer(name string, log *slog.Logger, opts *Options, etcd *etcdConn, sec *security, lb *loopback, tracer *serverTracing, groups []GroupBuilder) (*server.Server, error) {
	m := metrics.New()
	// The watch caches start filling once every group is built: building registers types in
	// the scheme, which their decoding reads.
	built := make(chan struct{})
	defer close(built)
	factory, err := newStorageFactory(&opts.WatchCacheOptions, etcd,
		&etcd3.StorageFactory{Client: etcd.client, Prefix: opts.EtcdPrefix, Metrics: m, Transformers: etcd.transformers,
			Leases: etcd3.LeaseConfig{ReuseDurationSeconds: opts.LeaseReuseDurationSeconds}}, log, built)
	if err != nil {
		return nil, err
	}
	if factory, err = withStorageVersionOverrides(factory, &opts.StorageMigrationOptions); err != nil {
		return nil, err
	}
	w := &wiring{table: builtins, opts: opts, log: log, scheme: runtime.NewScheme(), factory: factory, metrics: m,
		etcd: etcd, sec: sec, builders: groups, loopback: lb,
		// With --etcd-servers other replicas may share the etcd: the singleton controllers
		// run under Leases, through the loopback client. The embedded etcd has one process.
		singles: newSingletons(opts.LeaderElectionOptions, opts.LeaderElect && len(opts.EtcdServers) > 0, log, lb.clients)}
	if err := w.build(); err != nil {
		return nil, err
	}
	if f, ok := factory.(*overridingFactory); ok {
		if err := f.unused(); err != nil {
			return nil, err
		}
	}
	cfg := serverConfig(name, log, opts, m, sec, tracer)
	cfg.PriorityAndFairness = w.flowControl.handler()
	c, err := buildChain(opts, chainConfig{server: cfg, scheme: w.scheme, storage: factory,
		admission: w.admission}, w.core, w.serve)
	if err != nil {
		return nil, err
	}
	return c.top, w.chained(c)
}

// serverConfig is the configuration of every link of the chain: the flags', sec's
// authenticator, authorizer and audit (set once the built-in table has built the authorizer),
// and tracer's provider (nil: no tracing).
func serverConfig(name string, log *slog.Logger, opts *Options, m *metrics.Metrics, sec *security, tracer *serverTracing) server.Config {
	cfg := server.Config{Name: name, Logger: log, RequestTimeout: opts.RequestTimeout, Metrics: m,
		ShutdownDelayDuration: opts.ShutdownDelayDuration, Profiling: opts.Profiling, HTTP2MaxStreamsPerConnection: opts.HTTP2MaxStreamsPerConnection,
		MaxRequestsInFlight: noLimitIsNegative(opts.MaxRequestsInFlight), MaxMutatingRequestsInFlight: noLimitIsNegative(opts.MaxMutatingRequestsInFlight)}
	sec.apply(&cfg)
	if tracer != nil {
		cfg.TracerProvider = tracer.provider
	}
	if !opts.Enabled(FeatureServerSideApply) {
		cfg.InstallAPIGroup = endpoints.InstallAPIGroupWithoutFieldManagement
	}
	return cfg
}

// noLimitIsNegative maps a flag's "0 means no limit" to server.Config's "negative means no
// limit" (where zero means the default).
func noLimitIsNegative(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

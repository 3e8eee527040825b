package kine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/k3s-io/kine/pkg/drivers"
	"github.com/k3s-io/kine/pkg/drivers/pgsql"
	"github.com/k3s-io/kine/pkg/drivers/sqlite"
	"github.com/k3s-io/kine/pkg/server"
	"github.com/sirupsen/logrus"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// KineVersion is the kine release linked (go.mod pins it): v0.17.5 serves etcd's API as etcd
// EmulatedEtcdVersion, with watch progress notifications (RequestProgress), and compacts only
// when asked (Start turns its own compactor off).
const KineVersion = "v0.17.5"

// EmulatedEtcdVersion is the etcd version kine reports in Status, as kine's
// --emulated-etcd-version default: the API server's checks of etcd's features read it.
const EmulatedEtcdVersion = "3.6.11"

// Defaults of Config's intervals, kine's own defaults.
const (
	// DefaultNotifyInterval is how often an idle watch that asked for progress
	// notifications gets one (kine's --watch-progress-notify-interval).
	DefaultNotifyInterval = 5 * time.Second
	// DefaultPollInterval is how often kine reads the table for rows other kine processes
	// wrote (kine's --datastore-poll-interval); its own writes reach its watches at once.
	DefaultPollInterval = time.Second
)

// compactBatchSize is how many revisions one compaction transaction deletes (kine's
// --compact-batch-size default).
const compactBatchSize = 1000

// Config configures a kine server.
type Config struct {
	// Endpoint is the database, as kine's --endpoint: "sqlite://<file>?<mattn/go-sqlite3
	// params>" (sqlite://<file> alone gets kine's defaults: WAL, busy timeout 30s) or
	// "postgres://<user>[:<password>]@<host>[:<port>]/<database>?<params>" (libpq's URL;
	// the database is created when missing). Required.
	Endpoint string
	// Listen is where the etcd API is served: "unix://<absolute path>" (a socket only its
	// owner may open, 0600) or "127.0.0.1:<port>" (port 0 picks a free one). The host must
	// be a loopback address: the API is served without TLS or authentication. Required.
	Listen string
	// NotifyInterval is how often idle watches that asked for progress notifications get
	// one; 0 means DefaultNotifyInterval.
	NotifyInterval time.Duration
	// PollInterval is how often kine reads rows written by other kine processes on the same
	// database; 0 means DefaultPollInterval.
	PollInterval time.Duration
}

// Server is a running kine: etcd's gRPC API (KV, Watch, Lease grant, Maintenance status and
// compaction, Cluster member list) over Config.Endpoint's database.
type Server struct {
	endpoint string
	grpc     *grpc.Server
	cancel   context.CancelFunc
	wg       *sync.WaitGroup
	served   chan error
	once     sync.Once
	closeErr error
}

// Start opens cfg.Endpoint's database (creating kine's table), starts serving etcd's API on
// cfg.Listen and returns once it accepts connections. The server runs until Close (ctx only
// bounds the start). Errors: a bad Config, an unknown scheme, a database that cannot be
// opened, a Listen address in use.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	scheme, _, ok := strings.Cut(cfg.Endpoint, "://")
	if !ok {
		return nil, fmt.Errorf("kine endpoint %q: want sqlite://<file> or postgres://<url>", redact(cfg.Endpoint))
	}
	var constructor drivers.Constructor
	switch scheme {
	case "sqlite":
		constructor = sqlite.New
	case "postgres", "postgresql":
		constructor = pgsql.New
	default:
		return nil, fmt.Errorf("kine endpoint %q: scheme %q is not linked (sqlite, postgres)", redact(cfg.Endpoint), scheme)
	}
	network, address, err := listenAddress(cfg.Listen)
	if err != nil {
		return nil, err
	}
	if cfg.NotifyInterval <= 0 {
		cfg.NotifyInterval = DefaultNotifyInterval
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	quietLogs()

	// The backend outlives ctx: it runs until Close.
	bctx, cancel := context.WithCancel(context.Background())
	s := &Server{cancel: cancel, wg: &sync.WaitGroup{}, served: make(chan error, 1)}
	fail := func(err error) (*Server, error) {
		cancel()
		s.wg.Wait()
		return nil, err
	}
	dcfg := &drivers.Config{
		Endpoint:         cfg.Endpoint,
		Scheme:           scheme,
		DataSourceName:   strings.TrimPrefix(cfg.Endpoint, scheme+"://"),
		PollInterval:     cfg.PollInterval,
		CompactInterval:  0, // the API server compacts (Compact RPC)
		CompactTimeout:   5 * time.Second,
		CompactBatchSize: compactBatchSize,
		CompactMinRetain: 0,
		PollBatchSize:    500,
	}
	started := make(chan error, 1)
	var backend server.Backend
	go func() {
		var err error
		_, backend, err = constructor(bctx, s.wg, dcfg)
		if err == nil {
			err = backend.Start(bctx)
		}
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			return fail(fmt.Errorf("cannot start kine on %s: %w", redact(cfg.Endpoint), err))
		}
	case <-ctx.Done():
		return fail(fmt.Errorf("cannot start kine on %s: %w", redact(cfg.Endpoint), ctx.Err()))
	}

	if network == "unix" {
		if err := os.Remove(address); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fail(fmt.Errorf("cannot remove the stale kine socket %s: %w", address, err))
		}
	}
	lis, err := (&net.ListenConfig{}).Listen(ctx, network, address)
	if err != nil {
		return fail(fmt.Errorf("kine cannot listen on %s: %w", cfg.Listen, err))
	}
	if network == "unix" {
		if err := os.Chmod(address, 0o600); err != nil {
			lis.Close()
			return fail(fmt.Errorf("cannot restrict the kine socket %s: %w", address, err))
		}
		s.endpoint = "unix://" + address
	} else {
		s.endpoint = "http://" + lis.Addr().String()
	}
	// The options of kine's endpoint package (etcd's server defaults).
	s.grpc = grpc.NewServer(
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: embed.DefaultGRPCKeepAliveMinTime}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: embed.DefaultGRPCKeepAliveInterval, Timeout: embed.DefaultGRPCKeepAliveTimeout}),
		grpc.MaxConcurrentStreams(embed.DefaultMaxConcurrentStreams),
		grpc.MaxRecvMsgSize(int(embed.DefaultMaxRequestBytes)+512*1024),
	)
	server.New(backend, strings.SplitN(s.endpoint, "://", 2)[0], cfg.NotifyInterval, EmulatedEtcdVersion).Register(s.grpc)
	go func() { s.served <- s.grpc.Serve(lis) }()
	return s, nil
}

// Endpoints returns the client URLs of the etcd API: one, "unix://<path>" or
// "http://127.0.0.1:<port>", for clientv3.Config.Endpoints or --etcd-servers.
func (s *Server) Endpoints() []string { return []string{s.endpoint} }

// Close stops serving (open watches end), stops kine's goroutines and closes the database.
// Later calls return the first's result.
func (s *Server) Close() error {
	s.once.Do(func() {
		stopped := make(chan struct{})
		go func() { s.grpc.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(2 * time.Second): // kine's GracefulStopTimeout
			s.grpc.Stop()
		}
		if err := <-s.served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.closeErr = fmt.Errorf("kine stopped serving: %w", err)
		}
		s.cancel()
		s.wg.Wait()
	})
	return s.closeErr
}

// listenAddress parses Config.Listen. Errors: an empty, relative or non-loopback address.
func listenAddress(listen string) (network, address string, err error) {
	if path, ok := strings.CutPrefix(listen, "unix://"); ok {
		if !filepath.IsAbs(path) {
			return "", "", fmt.Errorf("kine listen address %q: the socket path must be absolute", listen)
		}
		return "unix", path, nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "", "", fmt.Errorf("kine listen address %q: want unix://<path> or 127.0.0.1:<port>: %w", listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", "", fmt.Errorf("kine listen address %q: the host must be a loopback address (kine serves without TLS or authentication)", listen)
	}
	return "tcp", listen, nil
}

// redact hides the password of a postgres URL in messages.
func redact(endpoint string) string {
	scheme, rest, ok := strings.Cut(endpoint, "://")
	if !ok {
		return endpoint
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return endpoint
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return endpoint
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}

var quietOnce sync.Once

// quietLogs lowers kine's logrus logger (the process's standard logrus logger) to warnings:
// kine logs every start's schema checks at info.
func quietLogs() {
	quietOnce.Do(func() {
		if logrus.GetLevel() > logrus.WarnLevel {
			logrus.SetLevel(logrus.WarnLevel)
		}
	})
}

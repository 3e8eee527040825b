package embedded

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/client/pkg/v3/types"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// DefaultStartTimeout bounds Start when ctx has no deadline.
const DefaultStartTimeout = 30 * time.Second

// defaultName is a member's name when Config.Name is "".
const defaultName = "apigen"

// maxPortAttempts is how many times Start picks free ports when one it picked is taken
// before etcd listens on it.
const maxPortAttempts = 3

// Config configures an embedded etcd member.
type Config struct {
	// DataDir holds the member's WAL and database; required. An existing member's data is
	// reused.
	DataDir string
	// ClientURL and PeerURL are the member's URLs, e.g. "http://127.0.0.1:2379", or https
	// with TLS. The host must be a loopback address. "" picks a free 127.0.0.1 port (http, or
	// https with TLS).
	ClientURL string
	PeerURL   string
	// TLS, when not nil, makes the member serve its client and peer URLs over TLS and accept
	// only clients presenting a certificate signed by TLS.TrustedCAFile (etcd's
	// --client-cert-auth and --peer-client-cert-auth): a local process without the keys
	// cannot read or write it, nor speak raft to it. Both URLs must then be https. The
	// in-process Client is not affected.
	TLS *TLSFiles
	// LogLevel is etcd's zap log level ("debug", "info", "warn", "error", ...); "" means
	// "error".
	LogLevel string
	// WatchProgressNotifyInterval is how often etcd sends progress notifications (which
	// become BOOKMARK events) to watches that ask for them. 0 means etcd's default, 10m.
	// Tests use a short interval.
	WatchProgressNotifyInterval time.Duration
	// UnsafeNoFsync skips fsync: faster, but a crash can lose data. For tests only.
	UnsafeNoFsync bool
	// MaxTxnOps is the most operations the member accepts in one transaction (etcd's
	// --max-txn-ops); 0 means etcd's default, 128.
	MaxTxnOps uint
	// SnapshotCount is how many applied raft entries trigger a snapshot to disk, after which
	// older WAL files may be purged (etcd's --snapshot-count); 0 means etcd's default,
	// 10,000. It bounds the WAL a restart replays, not memory: since etcd 3.6 a member
	// compacts its in-memory raft log every 100 applied entries, keeping
	// SnapshotCatchUpEntries.
	SnapshotCount uint64
	// QuotaBackendBytes is the most bytes the member's database (bbolt, memory-mapped: its
	// pages count in the process's file-backed RSS as they are read) may take; past it the
	// member raises a NOSPACE alarm and refuses writes but deletions and compactions, with
	// "etcdserver: mvcc: database space exceeded" (etcd's --quota-backend-bytes). 0 means
	// etcd's default, 2 GiB.
	QuotaBackendBytes int64
	// Name is the member's name, unique in its cluster (etcd's --name); "" means "apigen".
	Name string
	// InitialCluster, when not "", makes the member one of a cluster of several members
	// bootstrapped together (etcd's --initial-cluster): comma-separated name=peer-URL pairs
	// of every member, this one's included as Name=PeerURL, e.g.
	// "m0=http://127.0.0.1:23800,m1=http://127.0.0.1:23801,m2=http://127.0.0.1:23802".
	// PeerURL must then be given (the other members must know it in advance) and every URL
	// must be loopback. "" bootstraps a cluster of this member alone.
	//
	// Start returns once the member has joined a cluster with a leader, which takes a quorum
	// of the members: start the members of one cluster concurrently (a goroutine each). A
	// cluster runs etcd's default heartbeat and election timeouts (100ms and 1s) instead of
	// a lone member's short ones. A data directory that already holds a member is reused as
	// ever; InitialCluster is then ignored, as etcd ignores it.
	InitialCluster string
}

// TLSFiles are the PEM files of a member serving TLS with client certificates.
type TLSFiles struct {
	// CertFile and KeyFile are the member's certificate (server and client usage: peers
	// present it too) and key; TrustedCAFile the CA client certificates must be signed by.
	CertFile, KeyFile, TrustedCAFile string
}

// Server is a running embedded etcd member. Its methods are safe for concurrent use.
type Server struct {
	etcd      *embed.Etcd
	endpoints []string
	closeOnce sync.Once
}

// Start starts an etcd member as cfg describes and blocks until it is ready to serve
// clients. It returns an error when cfg is invalid, when etcd fails to start, or when ctx
// ends (or DefaultStartTimeout passes, if ctx has no deadline) before the member is ready;
// on error nothing is left running.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cannot start embedded etcd in %s: %w", cfg.DataDir, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	var e *embed.Etcd
	for attempt := 1; ; attempt++ {
		ecfg, err := etcdConfig(cfg)
		if err != nil {
			return nil, err
		}
		if e, err = embed.StartEtcd(ecfg); err == nil {
			break
		}
		// A port freePort found free may be taken before etcd binds it (by another process,
		// or an outgoing connection's ephemeral port): pick new ones, a few times.
		if picked := cfg.ClientURL == "" || cfg.PeerURL == ""; !picked || !errors.Is(err, syscall.EADDRINUSE) || attempt == maxPortAttempts {
			return nil, fmt.Errorf("cannot start embedded etcd in %s: %w", cfg.DataDir, err)
		}
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("cannot start embedded etcd in %s: %w", cfg.DataDir, err)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("cannot start embedded etcd in %s: %w", cfg.DataDir, ctx.Err())
	}
	s := &Server{etcd: e}
	scheme := "http://"
	if cfg.TLS != nil {
		scheme = "https://"
	}
	for _, l := range e.Clients {
		s.endpoints = append(s.endpoints, scheme+l.Addr().String())
	}
	return s, nil
}

// Endpoints returns the member's client URLs, e.g. ["http://127.0.0.1:41234"], or https
// ones with TLS.
func (s *Server) Endpoints() []string {
	return append([]string(nil), s.endpoints...)
}

// Client returns a client that calls the member in this process, through etcd's own
// v3client: each KV, Watch, Lease and Maintenance call is a function call into the member's
// gRPC service implementations, with no socket, no HTTP/2 framing and no protobuf encoding
// between them (etcd's grpc-proxy and v3election gateways use it the same way). The member
// sees the same requests as over gRPC, minus its gRPC interceptors (request logging and
// metrics); its limits still hold (--max-txn-ops, --max-request-bytes, the space quota).
// Values the client returns and watch events may be shared with the member and with other
// watchers: they must not be modified.
//
// Each call returns a new client. Closing it does not stop the member; its Close returns
// context.Canceled, the cancellation of the client's own context, which is not a failure.
// Use a client only while the member runs: once Close has stopped the member, calls fail with
// etcd's "server stopped".
func (s *Server) Client() *clientv3.Client {
	return v3client.New(s.etcd.Server)
}

// Close stops the member and waits until it has stopped. Clients connected to it see it as
// unreachable afterwards. Close is idempotent and always returns nil; the error return
// leaves room for io.Closer users.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.etcd.Close()
		<-s.etcd.Server.StopNotify()
	})
	return nil
}

// loneMemberCatchUpEntries is how many applied raft entries a lone member keeps in memory
// (etcd's --snapshot-catchup-entries); a member of a cluster keeps etcd's default.
const loneMemberCatchUpEntries = 100

// etcdConfig turns cfg into an embed.Config, picking free ports where cfg leaves them empty.
func etcdConfig(cfg Config) (*embed.Config, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("cannot configure embedded etcd: DataDir is required")
	}
	if cfg.InitialCluster != "" && cfg.PeerURL == "" {
		return nil, errors.New("cannot configure embedded etcd: a member of an InitialCluster needs its PeerURL")
	}
	scheme := "http"
	if cfg.TLS != nil {
		scheme = "https"
	}
	clientURL, err := loopbackURL(cfg.ClientURL, scheme)
	if err != nil {
		return nil, fmt.Errorf("cannot configure embedded etcd client URL: %w", err)
	}
	peerURL, err := loopbackURL(cfg.PeerURL, scheme)
	if err != nil {
		return nil, fmt.Errorf("cannot configure embedded etcd peer URL: %w", err)
	}
	e := embed.NewConfig()
	e.Name = cfg.Name
	if e.Name == "" {
		e.Name = defaultName
	}
	e.Dir = cfg.DataDir
	e.ListenClientUrls = []url.URL{*clientURL}
	e.AdvertiseClientUrls = []url.URL{*clientURL}
	e.ListenPeerUrls = []url.URL{*peerURL}
	e.AdvertisePeerUrls = []url.URL{*peerURL}
	e.InitialCluster = e.Name + "=" + peerURL.String()
	e.InitialClusterToken = "apigen-embedded"
	if cfg.InitialCluster != "" {
		// A cluster's members keep etcd's ticks and raft log: their heartbeats cross
		// sockets (a busy machine must not make followers miss them and call elections),
		// and followers catch up from the log.
		if err := checkInitialCluster(cfg.InitialCluster, e.Name, peerURL, scheme); err != nil {
			return nil, err
		}
		e.InitialCluster = cfg.InitialCluster
	} else {
		// A lone member elects itself after a few ticks: short ticks make it ready in tens
		// of milliseconds instead of half a second, at the cost of 100 no-op heartbeats a
		// second. It has no follower to catch up: after each in-memory snapshot (every 100
		// entries) it keeps loneMemberCatchUpEntries raft entries instead of etcd's 5,000,
		// which at 2 KiB objects held about 10 MiB of written values in memory for nothing.
		e.TickMs, e.ElectionMs = 10, 100
		e.SnapshotCatchUpEntries = loneMemberCatchUpEntries
	}
	if t := cfg.TLS; t != nil {
		info := transport.TLSInfo{CertFile: t.CertFile, KeyFile: t.KeyFile, TrustedCAFile: t.TrustedCAFile, ClientCertAuth: true}
		e.ClientTLSInfo, e.PeerTLSInfo = info, info
	}
	e.Logger = "zap"
	e.LogLevel = cfg.LogLevel
	if e.LogLevel == "" {
		e.LogLevel = "error"
	}
	e.LogOutputs = []string{"stderr"}
	lg, err := memberLogger(e.LogLevel)
	if err != nil {
		return nil, err
	}
	e.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	e.AutoCompactionRetention = "0" // off: etcd3.StartCompactor compacts
	e.UnsafeNoFsync = cfg.UnsafeNoFsync
	if cfg.MaxTxnOps > 0 {
		e.MaxTxnOps = cfg.MaxTxnOps
	}
	if cfg.SnapshotCount > 0 {
		e.SnapshotCount = cfg.SnapshotCount
	}
	if cfg.QuotaBackendBytes > 0 {
		e.QuotaBackendBytes = cfg.QuotaBackendBytes
	}
	if cfg.WatchProgressNotifyInterval > 0 {
		e.WatchProgressNotifyInterval = cfg.WatchProgressNotifyInterval
	}
	return e, nil
}

// checkInitialCluster checks a Config.InitialCluster: name=URL pairs of loopback URLs with
// scheme, among them name=peerURL.
func checkInitialCluster(initial, name string, peerURL *url.URL, scheme string) error {
	members, err := types.NewURLsMap(initial)
	if err != nil {
		return fmt.Errorf("cannot configure embedded etcd initial cluster %q: %w", initial, err)
	}
	for member, urls := range members {
		for _, u := range urls {
			if _, err := loopbackURL(u.String(), scheme); err != nil {
				return fmt.Errorf("cannot configure embedded etcd initial cluster: member %s: %w", member, err)
			}
		}
	}
	if !slices.ContainsFunc(members[name], func(u url.URL) bool { return u.String() == peerURL.String() }) {
		return fmt.Errorf("cannot configure embedded etcd initial cluster %q: it lacks this member, %s=%s", initial, name, peerURL)
	}
	return nil
}

// loopbackURL parses raw, which must name a loopback host with scheme ("http" or "https"),
// or returns a URL with a free 127.0.0.1 port when raw is "".
func loopbackURL(raw, scheme string) (*url.URL, error) {
	if raw == "" {
		port, err := pickPort()
		if err != nil {
			return nil, err
		}
		return &url.URL{Scheme: scheme, Host: fmt.Sprintf("127.0.0.1:%d", port)}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme != scheme {
		return nil, fmt.Errorf("%s must be an %s URL", raw, scheme)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("host %q of %s is not a loopback address", host, raw)
	}
	return u, nil
}

// pickPort is freePort; tests replace it.
var pickPort = freePort

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// memberLogger is the logger etcd builds for a member logging at level to stderr
// (logutil.DefaultZapLoggerConfig), except that it samples only at "debug" and "info": zap's
// sampler, which drops the repeats of a line beyond 100 a second, keeps a table of 7 x 4096
// counters (448 KiB, resident for the life of the process), and the quieter levels have no
// floods to drop. Errors: level is none of zap's.
func memberLogger(level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("invalid etcd log level: %w", err)
	}
	cfg := logutil.DefaultZapLoggerConfig
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	if lvl > zapcore.InfoLevel {
		cfg.Sampling = nil
	}
	lg, err := cfg.Build()
	if err != nil {
		return nil, fmt.Errorf("cannot build the etcd logger: %w", err)
	}
	return lg, nil
}

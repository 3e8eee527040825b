package app

import (
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/filters"
	"github.com/apigen-dev/apigen/runtime/storage/encryption"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storageversionmigrator"
)

// Options are the server's flags, named as kube-apiserver's where one exists.
type Options struct {
	// DataDir holds the embedded etcd's data (<DataDir>/etcd) and the kubeconfig
	// (<DataDir>/kubeconfig). Default "./apiserver-data".
	DataDir string
	// BindAddress is the loopback IP to listen on. Default "127.0.0.1".
	BindAddress string
	// SecurePort is the port to listen on; 0 picks a free one. Default 6443. (Named as
	// kube-apiserver's flag; it serves plain HTTP with --plain-http.)
	SecurePort int
	// EtcdServers are etcd client URLs; empty starts the embedded etcd. With several, the
	// client fails over between them (clientv3's balancer), as kube-apiserver's.
	EtcdServers []string
	// EncryptionProviderConfig is the apiserver.config.k8s.io/v1 EncryptionConfiguration
	// file of encryption at rest (kube-apiserver's --encryption-provider-config): the
	// providers each resource's values are written and read with. Empty: values are stored
	// as encoded.
	EncryptionProviderConfig string
	// EtcdTLS are the files that secure the connection to EtcdServers, as kube-apiserver's
	// --etcd-cafile, --etcd-certfile and --etcd-keyfile.
	EtcdTLS EtcdTLSFiles
	// EmbeddedEtcdClientURL is where the embedded etcd member serves clients such as
	// etcdctl (the server itself calls it in process): "" is https on a free loopback port
	// requiring a client certificate from <DataDir>/pki/etcd (printed in the readiness line);
	// "https://127.0.0.1:<port>" the same on that port; "http://127.0.0.1:<port>" serves
	// without authentication. Default "".
	EmbeddedEtcdClientURL string
	// StorageBackend is kube-apiserver's --storage-backend: "etcd3" (the default: the
	// embedded etcd, or EtcdServers) or a backend a main registered in StorageBackends, such
	// as "kine-sqlite".
	StorageBackend string
	// EtcdPrefix is the root of every key. Default "/registry".
	EtcdPrefix string
	// EtcdCompactionInterval is how often old revisions are compacted; 0 disables
	// compaction. Default 5m.
	EtcdCompactionInterval time.Duration
	// RequestTimeout bounds every request but watches; a request whose storage does not answer
	// in time fails with a 503/504 metav1.Status. Default 1m, as kube-apiserver's.
	RequestTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound concurrent reads and writes;
	// 0 means no limit. Defaults 400 and 200, as kube-apiserver's.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// EnablePriorityAndFairness replaces the two in-flight limits with API Priority and
	// Fairness (runtime/flowcontrol) sharing their sum among the priority levels, as
	// kube-apiserver's --enable-priority-and-fairness. Default true, as kube-apiserver's.
	EnablePriorityAndFairness bool
	// HTTP2MaxStreamsPerConnection is how many concurrent streams a client may open on one
	// HTTP/2 connection, as kube-apiserver's --http2-max-streams-per-connection; 0 means
	// server.DefaultHTTP2MaxStreamsPerConnection (100, as kube-apiserver). Default 0.
	HTTP2MaxStreamsPerConnection int
	// ShutdownDelayDuration is how long the server goes on serving after SIGTERM with /readyz
	// failing, before it stops listening and drains, as kube-apiserver's
	// --shutdown-delay-duration. Default 0, as kube-apiserver's.
	ShutdownDelayDuration time.Duration
	// Profiling serves Go's profiles at /debug/pprof/, as kube-apiserver's --profiling.
	// Default true, as kube-apiserver's.
	Profiling bool
	// SecureOptions are the serving, authentication, authorization and audit flags.
	SecureOptions
	// DelegatingOptions delegate authentication and authorization to a cluster.
	DelegatingOptions
	// AggregatorOptions register group versions other servers serve.
	AggregatorOptions
	// AdmissionOptions select the admission plugins.
	AdmissionOptions
	// GarbageCollectorOptions turn the in-process garbage collector on or off.
	GarbageCollectorOptions
	// LeaderElectionOptions elect the replica that runs each singleton controller.
	LeaderElectionOptions
	// WatchCacheOptions turn the watch cache on or off.
	WatchCacheOptions
	// EventOptions keep Events for --event-ttl.
	EventOptions
	// StorageMigrationOptions override storage versions and page the storage version migrator.
	StorageMigrationOptions
	// FeatureGates turn features off (--feature-gates).
	FeatureGates
	// TracingOptions turn on OpenTelemetry tracing (--tracing-config-file).
	TracingOptions
	// MemoryOptions bound the process's memory (--gc-memory-limit) and the embedded etcd's.
	MemoryOptions
	// RuntimeConfig turns the runtime's built-in API group versions on or off, as
	// kube-apiserver's --runtime-config: keys are "<group>/<version>" (e.g.
	// "apiextensions.k8s.io/v1") or "api/all", values "true" or "false". Every built-in group
	// version is on by default; see RuntimeConfigEnabled.
	RuntimeConfig map[string]string
	// LogLevel is "debug", "info", "warn" or "error"; debug logs every request. Default "info".
	LogLevel string
	// Verbosity is kube-apiserver's -v: 3 or more logs every request (debug level), whatever
	// LogLevel says. Default 0.
	Verbosity int
}

// requestLogVerbosity is the -v at which every request is logged, as kube-apiserver's
// httplog at -v=3.
const requestLogVerbosity = 3

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		DataDir:                     "apiserver-data",
		BindAddress:                 "127.0.0.1",
		SecurePort:                  6443,
		StorageBackend:              etcd3Backend,
		EtcdPrefix:                  "/registry",
		EtcdCompactionInterval:      5 * time.Minute,
		RequestTimeout:              time.Minute,
		MaxRequestsInFlight:         filters.DefaultMaxRequestsInFlight,
		MaxMutatingRequestsInFlight: filters.DefaultMaxMutatingRequestsInFlight,
		EnablePriorityAndFairness:   true,
		LogLevel:                    "info",
		Profiling:                   true,
		SecureOptions:               newSecureOptions(),
		DelegatingOptions:           newDelegatingOptions(),
		GarbageCollectorOptions:     GarbageCollectorOptions{EnableGarbageCollector: true},
		LeaderElectionOptions: LeaderElectionOptions{LeaderElect: true, LeaseDuration: 15 * time.Second,
			RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second, ResourceNamespace: "kube-system"},
		WatchCacheOptions:       newWatchCacheOptions(),
		EventOptions:            EventOptions{EventTTL: time.Hour, LeaseReuseDurationSeconds: etcd3.DefaultLeaseReuseDurationSeconds},
		StorageMigrationOptions: StorageMigrationOptions{MigrationPageSize: storageversionmigrator.DefaultPageSize},
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "directory of the embedded etcd's data (<dir>/etcd) and of the kubeconfig written for kubectl (<dir>/kubeconfig)")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address to listen on; with --plain-http (no authentication) only a loopback address is allowed")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "port to listen on (HTTPS, or plain HTTP with --plain-http); 0 picks a free port")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "comma-separated etcd client URLs; empty starts an embedded single-member etcd in <data-dir>/etcd")
	fs.StringVar(&o.EtcdTLS.CAFile, "etcd-cafile", o.EtcdTLS.CAFile, "SSL Certificate Authority file used to secure etcd communication (with --etcd-servers)")
	fs.StringVar(&o.EtcdTLS.CertFile, "etcd-certfile", o.EtcdTLS.CertFile, "SSL certification file used to secure etcd communication (with --etcd-servers)")
	fs.StringVar(&o.EtcdTLS.KeyFile, "etcd-keyfile", o.EtcdTLS.KeyFile, "SSL key file used to secure etcd communication (with --etcd-servers)")
	fs.StringVar(&o.EmbeddedEtcdClientURL, "embedded-etcd-client-url", o.EmbeddedEtcdClientURL, "loopback URL the embedded etcd serves clients such as etcdctl on: empty is https on a free port requiring the client certificate in <data-dir>/pki/etcd; https://127.0.0.1:<port> picks the port; http://127.0.0.1:<port> serves without authentication")
	fs.StringVar(&o.StorageBackend, "storage-backend", o.StorageBackend, "the storage backend for persistence: etcd3 (the embedded etcd, or --etcd-servers; an etcd API such as kine's counts) or one this server links in process (kine-sqlite: kine on SQLite in <data-dir>/kine)")
	fs.StringVar(&o.EtcdPrefix, "etcd-prefix", o.EtcdPrefix, "prefix of every etcd key")
	fs.StringVar(&o.EncryptionProviderConfig, "encryption-provider-config", o.EncryptionProviderConfig, "the file containing configuration for encryption providers to be used for storing resources in etcd (apiserver.config.k8s.io/v1 EncryptionConfiguration: identity, aescbc, aesgcm, secretbox, kms v2), as kube-apiserver's")
	fs.DurationVar(&o.EtcdCompactionInterval, "etcd-compaction-interval", o.EtcdCompactionInterval, "interval between compactions of old etcd revisions; 0 disables compaction")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "longest time a request other than a watch may take before the server gives up on it (a request's own shorter \"timeout\" parameter wins)")
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", o.MaxRequestsInFlight, "maximum number of non-mutating requests served at once (watches not counted); more get 429; 0 for no limit")
	fs.IntVar(&o.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", o.MaxMutatingRequestsInFlight, "maximum number of mutating requests served at once; more get 429; 0 for no limit")
	fs.BoolVar(&o.EnablePriorityAndFairness, "enable-priority-and-fairness", o.EnablePriorityAndFairness, "if true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness (the two max-in-flight flags' sum is the seats the priority levels share)")
	fs.IntVar(&o.HTTP2MaxStreamsPerConnection, "http2-max-streams-per-connection", o.HTTP2MaxStreamsPerConnection, "the limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection; zero means 100, as kube-apiserver (aggregated servers on k8s.io/apiserver's RecommendedOptions use 1000)")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "serve Go's profiles at /debug/pprof/ (authorized as non-resource paths)")
	fs.DurationVar(&o.ShutdownDelayDuration, "shutdown-delay-duration", o.ShutdownDelayDuration, "time to go on serving after SIGTERM with /readyz failing, so that load balancers stop sending requests, before the server stops listening and drains in-flight requests")
	o.SecureOptions.AddFlags(fs)
	o.DelegatingOptions.AddFlags(fs)
	o.AggregatorOptions.AddFlags(fs)
	o.AdmissionOptions.AddFlags(fs)
	o.GarbageCollectorOptions.AddFlags(fs)
	o.LeaderElectionOptions.AddFlags(fs)
	o.WatchCacheOptions.addFlags(fs)
	o.EventOptions.AddFlags(fs)
	o.StorageMigrationOptions.AddFlags(fs)
	o.FeatureGates.AddFlags(fs)
	o.TracingOptions.AddFlags(fs)
	o.MemoryOptions.AddFlags(fs)
	fs.StringToStringVar(&o.RuntimeConfig, "runtime-config", o.RuntimeConfig, "built-in API group versions to turn on or off, <group>/<version>=true|false or api/all=true|false, comma-separated (e.g. apiextensions.k8s.io/v1=false); all are on by default")
	fs.StringVar(&o.LogLevel, "log-level", o.LogLevel, "log level: debug (logs every request), info, warn or error")
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "log verbosity, as kube-apiserver's -v: 3 or more logs every request")
}

// Validate reports every invalid option together.
func (o *Options) Validate() error {
	var errs []string
	if o.DataDir == "" {
		errs = append(errs, "--data-dir must not be empty")
	}
	if ip := net.ParseIP(o.BindAddress); ip == nil {
		errs = append(errs, fmt.Sprintf("--bind-address %q is not an IP address", o.BindAddress))
	} else if o.PlainHTTP && !ip.IsLoopback() {
		errs = append(errs, fmt.Sprintf("--bind-address %q must be a loopback IP with --plain-http: plain HTTP serves without authentication", o.BindAddress))
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Sprintf("--secure-port %d must be between 0 and 65535", o.SecurePort))
	}
	if o.EtcdPrefix == "" || !strings.HasPrefix(o.EtcdPrefix, "/") {
		errs = append(errs, fmt.Sprintf("--etcd-prefix %q must start with /", o.EtcdPrefix))
	}
	errs = append(errs, o.validateStorageBackend()...)
	if u := o.EmbeddedEtcdClientURL; u != "" {
		if len(o.EtcdServers) > 0 {
			errs = append(errs, "--embedded-etcd-client-url needs the embedded etcd (no --etcd-servers)")
		}
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			errs = append(errs, fmt.Sprintf("--embedded-etcd-client-url %q must be an http:// or https:// loopback URL", u))
		}
	}
	if f := o.EncryptionProviderConfig; f != "" {
		if _, err := encryption.ParseFile(f); err != nil {
			errs = append(errs, fmt.Sprintf("--encryption-provider-config: %v", err))
		}
	}
	if o.EtcdTLS != (EtcdTLSFiles{}) && len(o.EtcdServers) == 0 {
		errs = append(errs, "--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers (the embedded etcd makes its own certificates)")
	}
	if (o.EtcdTLS.CertFile == "") != (o.EtcdTLS.KeyFile == "") {
		errs = append(errs, "--etcd-certfile and --etcd-keyfile go together")
	}
	if o.EtcdCompactionInterval < 0 {
		errs = append(errs, "--etcd-compaction-interval must not be negative")
	}
	if o.RequestTimeout <= 0 {
		errs = append(errs, "--request-timeout must be positive")
	}
	if o.MaxRequestsInFlight < 0 || o.MaxMutatingRequestsInFlight < 0 {
		errs = append(errs, "--max-requests-inflight and --max-mutating-requests-inflight must not be negative")
	}
	if o.HTTP2MaxStreamsPerConnection < 0 {
		errs = append(errs, "--http2-max-streams-per-connection must not be negative")
	}
	if o.ShutdownDelayDuration < 0 {
		errs = append(errs, "--shutdown-delay-duration must not be negative")
	}
	errs = append(errs, o.SecureOptions.validate()...)
	if o.PlainHTTP && (o.Kubeconfig != "" || o.AuthenticationKubeconfig != "" || o.AuthorizationKubeconfig != "") {
		errs = append(errs, "--kubeconfig, --authentication-kubeconfig and --authorization-kubeconfig need --plain-http=false: plain HTTP authenticates no one")
	}
	errs = append(errs, o.AggregatorOptions.validate(o.PlainHTTP)...)
	errs = append(errs, o.WatchCacheOptions.validate()...)
	errs = append(errs, o.LeaderElectionOptions.validate()...)
	errs = append(errs, o.EventOptions.validate()...)
	errs = append(errs, o.StorageMigrationOptions.validate()...)
	if o.LeaderElect && len(o.EtcdServers) > 0 && !o.RuntimeConfigEnabled(coordinationV1) {
		errs = append(errs, "--leader-elect with --etcd-servers needs "+coordinationV1+", turned off by --runtime-config (or --leader-elect=false when only one replica runs)")
	}
	errs = append(errs, o.FeatureGates.validate()...)
	errs = append(errs, o.TracingOptions.validate()...)
	errs = append(errs, o.MemoryOptions.validate(o.EtcdServers, o.StorageBackend)...)
	for k, v := range o.RuntimeConfig {
		if v != "true" && v != "false" {
			errs = append(errs, fmt.Sprintf("--runtime-config %s=%q: the value must be true or false", k, v))
		}
		if k != "api/all" && strings.Count(k, "/") != 1 {
			errs = append(errs, fmt.Sprintf("--runtime-config %q: write <group>/<version> or api/all", k))
		}
	}
	if _, err := o.level(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid flags: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (o *Options) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return 0, fmt.Errorf("--log-level %q must be debug, info, warn or error", o.LogLevel)
	}
	if o.Verbosity >= requestLogVerbosity {
		l = slog.LevelDebug
	}
	return l, nil
}

// RuntimeConfigEnabled reports whether the built-in group version gv ("apiextensions.k8s.io/v1",
// "v1" for the core group, whose --runtime-config key is "api/v1" as kube-apiserver's) is
// served: its own --runtime-config entry wins, then "api/all", then the default, on.
func (o *Options) RuntimeConfigEnabled(gv string) bool {
	key := gv
	if !strings.Contains(gv, "/") {
		key = "api/" + gv // the core group
	}
	if v, ok := o.RuntimeConfig[key]; ok {
		return v == "true"
	}
	if v, ok := o.RuntimeConfig["api/all"]; ok {
		return v == "true"
	}
	return true
}

package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	"go.opentelemetry.io/otel/trace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/filters"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/version"
)

// DefaultShutdownTimeout bounds the drain of in-flight requests when Config.ShutdownTimeout
// is zero.
const DefaultShutdownTimeout = 30 * time.Second

// APIGroupInstaller registers one restful.WebService per served version of info on container
// (paths /apis/<group>/<version>/...) and returns each version's discovery list, in
// info.PrioritizedVersions order; runtime/endpoints.InstallAPIGroup is the implementation.
type APIGroupInstaller func(container *restful.Container, info *registry.APIGroupInfo) ([]*metav1.APIResourceList, error)

// Config configures a Server.
type Config struct {
	// Name names the server in logs and as the OpenAPI title, e.g. "example-apiserver".
	Name string
	// Logger receives the server's logs; nil discards them. Requests are logged at debug level.
	Logger *slog.Logger
	// InstallAPIGroup installs a group's REST routes; nil means endpoints.InstallAPIGroup.
	// Tests replace it to serve hand-made routes.
	InstallAPIGroup APIGroupInstaller
	// ShutdownTimeout bounds how long Run waits for in-flight requests once its context ends;
	// then the remaining connections are closed. Zero means DefaultShutdownTimeout.
	// Long-running requests (watches) are told to end as soon as shutdown begins.
	ShutdownTimeout time.Duration
	// ShutdownDelayDuration is how long the server keeps serving, new connections included,
	// after shutdown begins, with /readyz already failing, so that load balancers and
	// endpoints controllers stop sending it traffic before it stops listening, as
	// kube-apiserver's --shutdown-delay-duration. Zero (the default, as kube-apiserver's)
	// stops listening at once.
	ShutdownDelayDuration time.Duration
	// RequestTimeout bounds each request that is not long-running: its context ends this long
	// after it arrived (see filters.WithRequestDeadline), as kube-apiserver's --request-timeout. Zero
	// means filters.DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound how many reads and writes are
	// served at once (watches are not counted); more get 429 with Retry-After, as
	// kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight. Zero
	// means filters.DefaultMaxRequestsInFlight and filters.DefaultMaxMutatingRequestsInFlight;
	// negative means no limit.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// Authenticator, when not nil, authenticates every request: one it does not accept gets
	// 401 (see filters.ChainConfig for the order of the filters).
	Authenticator auth.Authenticator
	// Authorizer, when not nil, authorizes every authenticated request: one it does not allow
	// gets 403. It needs an Authenticator.
	Authorizer authorization.Authorizer
	// AuditPolicy and AuditBackend, when both are set, audit every request
	// (--audit-policy-file, --audit-log-path, --audit-webhook-config-file).
	AuditPolicy  *audit.Policy
	AuditBackend audit.Backend
	// Metrics are served at /metrics; nil means new ones. Give the links of one chain, and the
	// storage factory, the same Metrics so that /metrics shows them all.
	Metrics *metrics.Metrics
	// HTTP2MaxStreamsPerConnection is how many concurrent streams a client may open on one
	// HTTP/2 connection, as kube-apiserver's --http2-max-streams-per-connection. Zero means
	// DefaultHTTP2MaxStreamsPerConnection.
	HTTP2MaxStreamsPerConnection int
	// Profiling serves Go's profiles (net/http/pprof) at /debug/pprof/, as kube-apiserver's
	// --profiling (on by default there). They are non-resource paths: with authorization,
	// only those allowed "get" on /debug/pprof/* see them, as on kube-apiserver.
	Profiling bool
	// TracerProvider, when not nil, records a span per request and the spans of its steps
	// (filters.WithTracing; --tracing-config-file). Nil: tracing is off.
	TracerProvider trace.TracerProvider
}

// Server serves API groups, discovery, OpenAPI, health and /version, and hands every other
// request to its delegate, as k8s.io/apiserver's GenericAPIServer. Build it with New, add
// groups, checks and hooks, then call PrepareRun. Its methods are safe for concurrent use.
type Server struct {
	cfg       Config
	log       *slog.Logger
	delegate  DelegationTarget
	container *restful.Container
	mux       *http.ServeMux
	rootAPIs  *discovery.RootAPIs

	mu       sync.Mutex
	prepared bool
	groups   []*registry.APIGroupInfo
	checks   []HealthChecker
	hooks    map[string]PostStartHookFunc
	// preShutdownHooks are run by Serve before it stops listening; nil when none.
	preShutdownHooks map[string]PreShutdownHookFunc
	paths            []string
	// proxy is the handler of the groups the server proxies (SetProxyHandler), or nil.
	proxy ProxyHandler

	metrics *metrics.Metrics

	// coreVersions are the versions of the core group ("") installed, listed in /api;
	// guarded by mu.
	coreVersions []string
	// resourceLists are the discovery lists of each installed group, by name, most
	// preferred version first; guarded by mu.
	resourceLists map[string][]*metav1.APIResourceList
}

// New returns a Server that delegates what it does not serve to delegate (NewEmptyDelegate()
// when nil). It serves /version, /metrics (Prometheus text; see Metrics), /api and /apis from
// the start.
func New(cfg Config, delegate DelegationTarget) *Server {
	if delegate == nil {
		delegate = NewEmptyDelegate()
	}
	if cfg.InstallAPIGroup == nil {
		cfg.InstallAPIGroup = endpoints.InstallAPIGroup
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	container := restful.NewContainer()
	container.Router(endpoints.NewRouter())
	container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	s := &Server{
		cfg: cfg, log: log, delegate: delegate, container: container,
		mux: http.NewServeMux(), rootAPIs: &discovery.RootAPIs{}, hooks: map[string]PostStartHookFunc{},
		metrics: cfg.Metrics, resourceLists: map[string][]*metav1.APIResourceList{},
	}
	if s.metrics == nil {
		s.metrics = metrics.New()
	}
	s.mux.Handle("/", delegate.UnprotectedHandler())
	s.handle("/version", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		info := version.Get()
		responsewriters.WriteJSON(w, http.StatusOK, &info)
	}))
	s.handle("/metrics", s.metrics.Handler())
	if cfg.Profiling {
		s.handle("/debug/pprof/", http.HandlerFunc(pprof.Index))
		s.handle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
		s.handle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
		s.handle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
	}
	s.handle("/api", s.withAggregated(discovery.NewAPIVersions(s.chainCoreVersions), true))
	s.handle("/apis", s.withAggregated(http.HandlerFunc(s.serveRootAPIs), false))
	s.mux.Handle("/apis/{$}", s.withAggregated(http.HandlerFunc(s.serveRootAPIs), false))
	return s
}

// handle registers h for path on the server's own mux and lists path.
func (s *Server) handle(path string, h http.Handler) {
	s.mux.Handle(path, h)
	s.paths = append(s.paths, path)
}

// InstallAPIGroups installs each group's REST routes with Config.InstallAPIGroup and serves
// its discovery documents (/apis/<group> and /apis/<group>/<version>, and an entry in /apis).
// It fails when the installer fails, when a group has no versions, and after PrepareRun.
func (s *Server) InstallAPIGroups(infos ...*registry.APIGroupInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prepared {
		return errors.New("cannot install API groups: the server is already prepared")
	}
	for _, info := range infos {
		if len(info.PrioritizedVersions) == 0 {
			return fmt.Errorf("cannot install API group %q: it has no versions", info.Group)
		}
		lists, err := s.cfg.InstallAPIGroup(s.container, info)
		if err != nil {
			return fmt.Errorf("cannot install API group %q: %w", info.Group, err)
		}
		for _, list := range lists {
			discovery.InstallResourceList(s.container, list)
		}
		s.resourceLists[info.Group] = lists
		if info.Group == "" { // the core group: listed in /api (served at /api/v1), never in /apis
			for _, gv := range info.PrioritizedVersions {
				s.coreVersions = append(s.coreVersions, gv.Version)
			}
			s.groups = append(s.groups, info)
			continue
		}
		group := discovery.NewAPIGroup(info.Group, info.PrioritizedVersions)
		s.container.Add(discovery.NewGroupWebService(group))
		s.rootAPIs.AddGroup(group)
		s.groups = append(s.groups, info)
	}
	return nil
}

// CoreVersions returns the versions of the core group ("") the server itself serves ("v1"),
// not its delegates'.
func (s *Server) CoreVersions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.coreVersions...)
}

// chainCoreVersions lists the core group's versions of s and of every delegate that serves
// it, without repeats, for /api, as kube-apiserver's aggregator shows the core group its
// delegate serves.
func (s *Server) chainCoreVersions() []string {
	var out []string
	seen := map[string]bool{}
	for link := DelegationTarget(s); link != nil; link = link.NextDelegate() {
		if cl, ok := link.(interface{ CoreVersions() []string }); ok {
			for _, v := range cl.CoreVersions() {
				if !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// AddHealthChecks adds checks to /healthz, /livez and /readyz. It fails after PrepareRun and
// for a name that is invalid (see validName), reserved ("ping", "shutdown",
// "poststarthook/...") or already added to the server.
func (s *Server) AddHealthChecks(checks ...HealthChecker) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prepared {
		return errors.New("cannot add health checks: the server is already prepared")
	}
	for _, c := range checks {
		name := c.Name()
		if err := validName(name); err != nil {
			return fmt.Errorf("cannot add health check: %w", err)
		}
		if name == PingHealthz.Name() || name == "shutdown" || strings.HasPrefix(name, "poststarthook/") {
			return fmt.Errorf("cannot add health check %q: the name is reserved", name)
		}
		for _, have := range s.checks {
			if have.Name() == name {
				return fmt.Errorf("cannot add health check %q: a check of that name exists", name)
			}
		}
		s.checks = append(s.checks, c)
	}
	return nil
}

// namePattern is what a check or hook name may look like: it becomes part of a URL path.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9._-]+)*$`)

// validName fails unless name is letters, digits, ".", "_" and "-" in "/"-separated segments,
// starting with a letter or digit ("etcd", "informer-sync/widgets").
func validName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("invalid name %q: want letters, digits, '.', '_', '-' and '/'", name)
	}
	return nil
}

// UnprotectedHandler returns the director without the handler chain's filters.
func (s *Server) UnprotectedHandler() http.Handler {
	return director{container: s.container, mux: s.mux}
}

// Handler returns the server's full handler: filters.BuildHandlerChain around UnprotectedHandler.
func (s *Server) Handler() http.Handler {
	return filters.BuildHandlerChain(s.UnprotectedHandler(), filters.ChainConfig{
		Log:                         s.log,
		RequestTimeout:              s.cfg.RequestTimeout,
		MaxRequestsInFlight:         s.cfg.MaxRequestsInFlight,
		MaxMutatingRequestsInFlight: s.cfg.MaxMutatingRequestsInFlight,
		Metrics:                     s.metrics,
		Authenticator:               s.cfg.Authenticator,
		Authorizer:                  s.cfg.Authorizer,
		AuditPolicy:                 s.cfg.AuditPolicy,
		AuditBackend:                s.cfg.AuditBackend,
		TracerProvider:              s.cfg.TracerProvider,
	})
}

// HealthzChecks returns the server's own health checks.
func (s *Server) HealthzChecks() []HealthChecker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]HealthChecker{}, s.checks...)
}

// PostStartHooks returns the server's own post-start hooks by name.
func (s *Server) PostStartHooks() map[string]PostStartHookFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	hooks := make(map[string]PostStartHookFunc, len(s.hooks))
	for name, hook := range s.hooks {
		hooks[name] = hook
	}
	return hooks
}

// ListedPaths returns the paths the server serves (its WebServices' roots and its own
// paths), sorted.
func (s *Server) ListedPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths := append([]string{}, s.paths...)
	for _, ws := range s.container.RegisteredWebServices() {
		paths = append(paths, ws.RootPath())
	}
	sort.Strings(paths)
	return paths
}

// NextDelegate returns the server's delegate.
func (s *Server) NextDelegate() DelegationTarget { return s.delegate }

// Metrics returns the server's metrics, served at /metrics; its handler chain counts and
// times every resource request in them, and storage may report to them.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// Container returns the server's go-restful container, for installers that add WebServices
// of their own. WebServices must be added before PrepareRun to appear in OpenAPI.
func (s *Server) Container() *restful.Container { return s.container }

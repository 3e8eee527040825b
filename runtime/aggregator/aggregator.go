package aggregator

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// DefaultCheckInterval is how often every APIService's availability is checked.
const DefaultCheckInterval = 5 * time.Second

// Store is the APIService storage the aggregator reads, watches and writes in-process: the
// apiservices resource of the group NewAPIGroupInfo builds.
type Store interface {
	rest.Getter
	rest.Lister
	rest.Watcher
	rest.Creater
	rest.Updater
	rest.GracefulDeleter
}

// Config configures an Aggregator.
type Config struct {
	// APIServices is the apiservices storage; Status its status subresource's.
	APIServices Store
	Status      rest.Updater
	// Resolver resolves an APIService's spec.service to the backend's URL.
	Resolver ServiceResolver
	// ClientCert is the front-proxy client certificate (--proxy-client-cert-file) presented to
	// backends, which trust it through their --requestheader-client-ca-file.
	ClientCert *tls.Certificate
	// RootCAs verify a backend's serving certificate when its APIService has no caBundle
	// (--proxy-endpoint-ca-file); nil means the system roots.
	RootCAs *x509.CertPool
	// ProxyDisabled, when not empty, is why nothing is proxied (e.g. the server serves plain
	// HTTP and knows no caller to pass on): every APIService with a spec.service is then
	// Available=False with reason ProxyDisabled and this message.
	ProxyDisabled string
	// Delegate serves every request the aggregator does not proxy: the next link of the
	// delegation chain's UnprotectedHandler.
	Delegate http.Handler
	// LocalGroups returns the groups served by the chain behind the aggregator; each of their
	// versions gets a Local APIService, as kube-aggregator's autoregister controller makes.
	// Nil registers none.
	LocalGroups func() []metav1.APIGroup
	// CheckInterval is how often availability is checked; zero means DefaultCheckInterval.
	CheckInterval time.Duration
	// Log receives availability changes; nil discards them.
	Log *slog.Logger
}

// Aggregator proxies the group versions of APIServices with a spec.service to their
// backends, serves their groups' discovery documents, and keeps their Available condition, as
// kube-aggregator. Requests reach it through the first server of the chain
// (server.Server.SetProxyHandler); Run runs its controllers.
type Aggregator struct {
	cfg     Config
	log     *slog.Logger
	gauge   *prometheus.GaugeVec
	state   atomic.Pointer[snapshot]
	changed chan struct{}
	// synced is closed once the first list of APIServices is in the snapshot.
	synced     chan struct{}
	syncedOnce sync.Once
	// discovered holds the backends' discovery documents, openAPI their OpenAPI v3 ones.
	discovered discoveryCache
	openAPI    openAPIProxy
}

// snapshot is the APIService set at one moment, replaced as a whole when it changes, as
// kube-aggregator swaps its per-APIService proxy handlers atomically.
type snapshot struct {
	byGV   map[schema.GroupVersion]*entry
	groups []metav1.APIGroup // the proxied groups' documents, in /apis order
	byName map[string]metav1.APIGroup
}

// entry is one APIService and what proxying to it needs.
type entry struct {
	obj *apiregv1.APIService
	// transport reaches the backend; nil for a Local APIService or when transportErr says why.
	transport    *http.Transport
	transportErr error
}

// local reports whether the APIService is served by the chain behind the aggregator.
func (e *entry) local() bool { return e.obj.Spec.Service == nil }

// available reports whether the APIService's Available condition is True.
func (e *entry) available() bool {
	c := e.obj.Status.AvailableCondition()
	return c != nil && c.Status == apiregv1.ConditionTrue
}

// New returns an aggregator proxying nothing until Run has listed the APIServices. Errors: a
// missing store, status store, resolver or delegate.
func New(cfg Config) (*Aggregator, error) {
	if cfg.APIServices == nil || cfg.Status == nil || cfg.Resolver == nil || cfg.Delegate == nil {
		return nil, errors.New("aggregator: the APIService stores, a resolver and a delegate are required")
	}
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = DefaultCheckInterval
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Aggregator{cfg: cfg, log: log, changed: make(chan struct{}, 1), synced: make(chan struct{}),
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "aggregator_unavailable_apiservice",
			Help: "Gauge of APIServices which are marked as unavailable broken down by APIService name.",
		}, []string{"name"})}
	a.state.Store(&snapshot{byGV: map[schema.GroupVersion]*entry{}, byName: map[string]metav1.APIGroup{}})
	return a, nil
}

// StoresFrom returns the apiservices storage and its status subresource's from the group
// NewAPIGroupInfo (runtime/apis/apiregistration/v1/install) builds. Errors: a group without
// them.
func StoresFrom(info *registry.APIGroupInfo) (Store, rest.Updater, error) {
	stores := info.VersionedResourcesStorageMap[apiregv1.SchemeGroupVersion.Version]
	s, ok1 := stores["apiservices"].(Store)
	st, ok2 := stores["apiservices/status"].(rest.Updater)
	if !ok1 || !ok2 {
		return nil, nil, errors.New("the apiregistration.k8s.io group serves no apiservices with a status subresource")
	}
	return s, st, nil
}

// WaitForSync waits until Run has listed the APIServices once, so that requests are proxied
// as they say. Errors: ctx's when it ends first.
func (a *Aggregator) WaitForSync(ctx context.Context) error {
	select {
	case <-a.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Collector is the aggregator_unavailable_apiservice gauge (1 unavailable, 0 available per
// APIService name), as kube-aggregator exports it; register it with the server's metrics.
func (a *Aggregator) Collector() prometheus.Collector { return a.gauge }

// APIGroups returns the discovery documents of the groups with at least one APIService that
// names a service, ordered as kube-aggregator orders /apis: by the highest
// groupPriorityMinimum of the group's APIServices, then by name. Each lists every version the
// group has an APIService for, by versionPriority then Kubernetes version order.
func (a *Aggregator) APIGroups() []metav1.APIGroup { return slices.Clone(a.state.Load().groups) }

// Available reports whether the APIService of gv is Available=True, and the condition's
// message; false, "no such APIService" when there is none.
func (a *Aggregator) Available(gv schema.GroupVersion) (bool, string) {
	e := a.state.Load().byGV[gv]
	if e == nil {
		return false, "no such APIService"
	}
	if c := e.obj.Status.AvailableCondition(); c != nil {
		return c.Status == apiregv1.ConditionTrue, c.Message
	}
	return false, "not checked yet"
}

// ServeHTTP serves a request under /apis/: /apis/<group> of a proxied group from its
// discovery document; /apis/<group>/<version>/... of an APIService with a spec.service by
// proxying it to the backend, or with a 503 ServiceUnavailable "service unavailable" status
// while the APIService is not Available or its service cannot be resolved, as
// kube-aggregator's proxy handler; everything else (local group versions) by the delegate.
func (a *Aggregator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	snap := a.state.Load()
	group, afterGroup, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/apis/"), "/")
	version, _, _ := strings.Cut(afterGroup, "/")
	if version == "" {
		if g, ok := snap.byName[group]; ok {
			responsewriters.WriteJSON(w, http.StatusOK, &g)
			return
		}
		a.cfg.Delegate.ServeHTTP(w, r)
		return
	}
	e := snap.byGV[schema.GroupVersion{Group: group, Version: version}]
	if e == nil || e.local() {
		a.cfg.Delegate.ServeHTTP(w, r)
		return
	}
	if !e.available() || e.transport == nil {
		responsewriters.WriteError(w, apierrors.NewServiceUnavailable("service unavailable"))
		return
	}
	svc := e.obj.Spec.Service
	base, err := a.cfg.Resolver.ResolveEndpoint(svc.Namespace, svc.Name, port(svc))
	if err != nil {
		a.log.Warn("cannot resolve the service of an APIService", "apiservice", e.obj.Name, "err", err)
		responsewriters.WriteError(w, apierrors.NewServiceUnavailable("service unavailable"))
		return
	}
	var rt http.RoundTripper = e.transport
	if tracing.InTrace(r.Context()) {
		// The request's trace context goes on to the backend, whose spans join its trace.
		rt = tracing.Transport(rt)
	}
	a.newReverseProxy(e.obj.Name, base, rt).ServeHTTP(w, r)
}

// port returns the service reference's port, 443 when unset (as defaulting sets it).
func port(s *apiregv1.ServiceReference) int32 {
	if s.Port == nil {
		return 443
	}
	return *s.Port
}

// setAPIServices replaces the snapshot with one of services, reusing the transport of an
// APIService whose spec did not change.
func (a *Aggregator) setAPIServices(services map[string]*apiregv1.APIService) {
	old := a.state.Load()
	snap := &snapshot{byGV: make(map[schema.GroupVersion]*entry, len(services)), byName: map[string]metav1.APIGroup{}}
	for _, s := range services {
		gv := schema.GroupVersion{Group: s.Spec.Group, Version: s.Spec.Version}
		e := &entry{obj: s}
		if prev := old.byGV[gv]; prev != nil && specEqual(prev.obj.Spec, s.Spec) {
			e.transport, e.transportErr = prev.transport, prev.transportErr
		} else if !e.local() {
			e.transport, e.transportErr = newTransport(s.Spec, a.cfg.ClientCert, a.cfg.RootCAs)
		}
		snap.byGV[gv] = e
	}
	snap.groups = groupDocuments(snap.byGV)
	for _, g := range snap.groups {
		snap.byName[g.Name] = g
	}
	a.state.Store(snap)
}

// groupDocuments returns the documents of the groups with a proxied version, as
// kube-aggregator's apisHandler builds them from the APIServices.
func groupDocuments(byGV map[schema.GroupVersion]*entry) []metav1.APIGroup {
	byGroup := map[string][]*apiregv1.APIService{}
	proxied := map[string]bool{}
	for gv, e := range byGV {
		byGroup[gv.Group] = append(byGroup[gv.Group], e.obj)
		proxied[gv.Group] = proxied[gv.Group] || !e.local()
	}
	type group struct {
		doc      metav1.APIGroup
		priority int32
	}
	var groups []group
	for name, services := range byGroup {
		if !proxied[name] {
			continue
		}
		slices.SortFunc(services, func(x, y *apiregv1.APIService) int {
			if c := cmp.Compare(y.Spec.VersionPriority, x.Spec.VersionPriority); c != 0 {
				return c
			}
			return -version.CompareKubeAwareVersionStrings(x.Spec.Version, y.Spec.Version)
		})
		g := group{doc: metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: name}}
		for _, s := range services {
			g.doc.Versions = append(g.doc.Versions, metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + s.Spec.Version, Version: s.Spec.Version})
			g.priority = max(g.priority, s.Spec.GroupPriorityMinimum)
		}
		g.doc.PreferredVersion = g.doc.Versions[0]
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(x, y group) int {
		if c := cmp.Compare(y.priority, x.priority); c != 0 {
			return c
		}
		return cmp.Compare(x.doc.Name, y.doc.Name)
	})
	out := make([]metav1.APIGroup, len(groups))
	for i, g := range groups {
		out[i] = g.doc
	}
	return out
}

// specEqual reports whether two specs proxy the same way.
func specEqual(x, y apiregv1.APIServiceSpec) bool {
	xs, ys := x.Service, y.Service
	if (xs == nil) != (ys == nil) || xs != nil && (xs.Namespace != ys.Namespace || xs.Name != ys.Name || port(xs) != port(ys)) {
		return false
	}
	return x.Group == y.Group && x.Version == y.Version && x.InsecureSkipTLSVerify == y.InsecureSkipTLSVerify &&
		string(x.CABundle) == string(y.CABundle)
}

// gvOf returns the group version of group and version.
func gvOf(group, version string) schema.GroupVersion {
	return schema.GroupVersion{Group: group, Version: version}
}

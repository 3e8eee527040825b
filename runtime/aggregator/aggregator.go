package aggregator

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// DefaultCheckInterval is how often a backend's availability is checked.
const DefaultCheckInterval = 5 * time.Second

// Backend is a group version served by another server, as an APIService names it.
type Backend struct {
	GroupVersion schema.GroupVersion
	// URL is the backend server's base URL, e.g. https://127.0.0.1:8443.
	URL *url.URL
}

// Name is the backend's APIService name: "<version>.<group>", e.g. "v1.test.apigen.dev".
func (b Backend) Name() string { return b.GroupVersion.Version + "." + b.GroupVersion.Group }

// ParseBackend parses a --proxy-endpoint value, "<group>/<version>=<https url>".
// Errors: a value of another shape, an empty group or version, a URL that is not https.
func ParseBackend(s string) (Backend, error) {
	gvs, raw, ok := strings.Cut(s, "=")
	group, version, ok2 := strings.Cut(gvs, "/")
	if !ok || !ok2 || group == "" || version == "" {
		return Backend{}, fmt.Errorf("--proxy-endpoint %q: write <group>/<version>=https://host:port", s)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return Backend{}, fmt.Errorf("--proxy-endpoint %q: %q is not an https://host:port URL", s, raw)
	}
	return Backend{GroupVersion: schema.GroupVersion{Group: group, Version: version}, URL: u}, nil
}

// Config configures an Aggregator.
type Config struct {
	Backends []Backend
	// Transport reaches the backends: it trusts their serving CA and presents the front-proxy
	// client certificate (--proxy-client-cert-file), which they trust through
	// --requestheader-client-ca-file.
	Transport http.RoundTripper
	// CheckInterval is how often availability is checked; zero means DefaultCheckInterval.
	CheckInterval time.Duration
	// Log receives availability changes; nil discards them.
	Log *slog.Logger
}

// Aggregator proxies the backends' groups. Build it with New, add its groups to the first
// server of the chain with Groups and Handler, and run Run as a post-start hook.
type Aggregator struct {
	cfg   Config
	log   *slog.Logger
	gauge *prometheus.GaugeVec

	mu        sync.RWMutex
	available map[string]condition // by Backend.Name
}

// condition is a backend's Available condition.
type condition struct {
	ok      bool
	message string
}

// New returns an aggregator over cfg.Backends; every backend starts unavailable until its
// first check. Errors: two backends for the same group version.
func New(cfg Config) (*Aggregator, error) {
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = DefaultCheckInterval
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Aggregator{cfg: cfg, log: log, available: map[string]condition{},
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "aggregator_unavailable_apiservice",
			Help: "Gauge of APIServices which are marked as unavailable broken down by APIService name.",
		}, []string{"name"})}
	for _, b := range cfg.Backends {
		if _, dup := a.available[b.Name()]; dup {
			return nil, fmt.Errorf("two --proxy-endpoint values for %s", b.GroupVersion)
		}
		a.available[b.Name()] = condition{message: "not checked yet"}
		a.gauge.WithLabelValues(b.Name()).Set(1)
	}
	return a, nil
}

// Collector is the aggregator_unavailable_apiservice gauge (1 unavailable, 0 available per
// APIService name), as kube-aggregator exports it; register it with the server's metrics.
func (a *Aggregator) Collector() prometheus.Collector { return a.gauge }

// Groups returns the discovery entries of the backends' groups, versions in the order given.
func (a *Aggregator) Groups() []metav1.APIGroup {
	byGroup := map[string]*metav1.APIGroup{}
	var names []string
	for _, b := range a.cfg.Backends {
		gv := b.GroupVersion
		g := byGroup[gv.Group]
		if g == nil {
			g = &metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: gv.Group}
			byGroup[gv.Group] = g
			names = append(names, gv.Group)
		}
		v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		g.Versions = append(g.Versions, v)
		if g.PreferredVersion.Version == "" {
			g.PreferredVersion = v
		}
	}
	sort.Strings(names)
	out := make([]metav1.APIGroup, 0, len(names))
	for _, n := range names {
		out = append(out, *byGroup[n])
	}
	return out
}

// Available reports a backend's Available condition: whether its last check succeeded, and
// why not.
func (a *Aggregator) Available(gv schema.GroupVersion) (bool, string) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	c, ok := a.available[gv.Version+"."+gv.Group]
	if !ok {
		return false, "no such APIService"
	}
	return c.ok, c.message
}

// Handler serves every request under /apis/<group> of the backends' groups: /apis/<group>
// itself from the discovery entry, /apis/<group>/<version>/... by proxying it to the backend,
// and 503 ServiceUnavailable while that backend is unavailable, 404 for a version no backend
// serves.
func (a *Aggregator) Handler() http.Handler {
	proxies := map[schema.GroupVersion]*httputil.ReverseProxy{}
	for _, b := range a.cfg.Backends {
		proxies[b.GroupVersion] = a.proxy(b)
	}
	groups := map[string]metav1.APIGroup{}
	for _, g := range a.Groups() {
		groups[g.Name] = g
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/apis/"), "/", 3)
		if len(parts) == 1 || parts[1] == "" {
			g := groups[parts[0]]
			responsewriters.WriteJSON(w, http.StatusOK, &g)
			return
		}
		gv := schema.GroupVersion{Group: parts[0], Version: parts[1]}
		p, ok := proxies[gv]
		if !ok {
			responsewriters.WriteStatus(w, responsewriters.NotFound())
			return
		}
		if ok, _ := a.Available(gv); !ok {
			responsewriters.WriteError(w, apierrors.NewServiceUnavailable("service unavailable"))
			return
		}
		p.ServeHTTP(w, r)
	})
}

// identityHeaders are the headers a backend reads the caller from; a client's own are
// always removed.
var identityHeaders = []string{"X-Remote-User", "X-Remote-Group", "Impersonate-User", "Impersonate-Group", "Authorization"}

// proxy returns the reverse proxy to b, as kube-aggregator's proxy handler: the caller's
// identity in front-proxy headers, the client's credentials and identity headers dropped,
// responses streamed as they come (watches).
func (a *Aggregator) proxy(b Backend) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Transport:     a.cfg.Transport,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(b.URL)
			pr.Out.Host = b.URL.Host
			for _, h := range identityHeaders {
				pr.Out.Header.Del(h)
			}
			for k := range pr.Out.Header {
				if strings.HasPrefix(k, "X-Remote-Extra-") || strings.HasPrefix(k, "Impersonate-Extra-") {
					pr.Out.Header.Del(k)
				}
			}
			if u, ok := auth.UserFrom(pr.In.Context()); ok {
				setIdentity(pr.Out.Header, u)
			}
			pr.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			a.log.Warn("cannot reach the backend", "apiservice", b.Name(), "err", err)
			responsewriters.WriteError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err)))
		},
	}
}

// setIdentity names u in front-proxy headers.
func setIdentity(h http.Header, u *auth.User) {
	h.Set("X-Remote-User", u.Name)
	for _, g := range u.Groups {
		h.Add("X-Remote-Group", g)
	}
	for k, vs := range u.Extra {
		for _, v := range vs {
			h.Add("X-Remote-Extra-"+url.PathEscape(k), v)
		}
	}
}

// Run checks every backend every CheckInterval until ctx ends, as kube-aggregator's
// availability controller: GET /apis/<group>/<version> as system:kube-aggregator in
// system:masters must answer 2xx within 5s.
func (a *Aggregator) Run(ctx context.Context) {
	t := time.NewTicker(a.cfg.CheckInterval)
	defer t.Stop()
	client := &http.Client{Transport: a.cfg.Transport, Timeout: 5 * time.Second}
	for {
		for _, b := range a.cfg.Backends {
			a.check(ctx, client, b)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check updates b's condition from one discovery request.
func (a *Aggregator) check(ctx context.Context, client *http.Client, b Backend) {
	msg := ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL.JoinPath("apis", b.GroupVersion.Group, b.GroupVersion.Version).String(), nil)
	if err == nil {
		setIdentity(req.Header, &auth.User{Name: "system:kube-aggregator", Groups: []string{auth.SystemPrivilegedGroup}})
		var resp *http.Response
		if resp, err = client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode < 200 || resp.StatusCode > 299 {
				msg = fmt.Sprintf("failing or missing response from %s: bad status from %s: %d", b.URL, req.URL, resp.StatusCode)
			}
		}
	}
	if err != nil {
		msg = fmt.Sprintf("failing or missing response from %s: %v", b.URL, err)
	}
	if ctx.Err() != nil {
		return
	}
	a.mu.Lock()
	prev := a.available[b.Name()]
	a.available[b.Name()] = condition{ok: msg == "", message: msg}
	a.mu.Unlock()
	if prev.ok != (msg == "") {
		a.log.Info("APIService availability changed", "apiservice", b.Name(), "available", msg == "", "message", msg)
	}
	unavailable := 0.0
	if msg != "" {
		unavailable = 1
	}
	a.gauge.WithLabelValues(b.Name()).Set(unavailable)
}

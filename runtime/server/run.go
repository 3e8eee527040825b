package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/version"
)

// PreparedServer is a Server ready to run, as k8s.io/apiserver's preparedGenericAPIServer.
type PreparedServer struct {
	*Server
	hooks        map[string]PostStartHookFunc
	preShutdown  map[string]PreShutdownHookFunc
	hooksDone    map[string]*atomic.Bool
	ready        chan struct{}
	shuttingDown atomic.Bool
	// stopping ends when shutdown tells long-running requests to end (stop cancels it).
	stopping context.Context
	stop     context.CancelFunc
}

// PrepareRun freezes the server: it serves the OpenAPI documents of the installed groups
// (built on the first request for one; a route using a type no group's OpenAPI definitions
// describe fails that request with 500 and is logged), merges the health checks, post-start
// and pre-shutdown hooks of the whole delegation chain,
// and serves /healthz, /livez, /readyz and the root path index. It fails when two links
// register a hook of the same name, or when called twice.
func (s *Server) PrepareRun() (*PreparedServer, error) {
	if err := s.markPrepared(); err != nil {
		return nil, err
	}
	if err := s.installOpenAPI(); err != nil {
		return nil, err
	}
	hooks, err := chainHooks(s)
	if err != nil {
		return nil, err
	}
	preShutdown, err := chainPreShutdownHooks(s)
	if err != nil {
		return nil, err
	}
	p := &PreparedServer{Server: s, hooks: hooks, preShutdown: preShutdown, hooksDone: map[string]*atomic.Bool{},
		ready: make(chan struct{})}
	p.stopping, p.stop = context.WithCancel(context.Background())
	checks := append([]HealthChecker{PingHealthz}, chainChecks(s)...)
	installHealthEndpoint(s.mux, "/healthz", s.log, checks)
	installHealthEndpoint(s.mux, "/livez", s.log, checks)
	installHealthEndpoint(s.mux, "/readyz", s.log, append(checks, p.readinessChecks()...))
	s.paths = append(s.paths, "/healthz", "/livez", "/readyz")
	s.installIndex()
	return p, nil
}

func (s *Server) markPrepared() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prepared {
		return errors.New("cannot prepare the server: it is already prepared")
	}
	s.prepared = true
	return nil
}

// installOpenAPI serves the OpenAPI documents of the container's WebServices, built on the
// first request for one (openapi.NewLazyService).
func (s *Server) installOpenAPI() error {
	var defs []common.GetOpenAPIDefinitions
	var schemes []*runtime.Scheme
	var services []*restful.WebService
	seen := map[*runtime.Scheme]bool{}
	// The documents cover the groups of every Server of the chain, as kube-apiserver's
	// aggregator merges its delegates' OpenAPI.
	for link := s; link != nil; {
		for _, g := range link.groups {
			defs = append(defs, g.OpenAPIDefinitions)
			if g.Scheme != nil && !seen[g.Scheme] {
				seen[g.Scheme] = true
				schemes = append(schemes, g.Scheme)
			}
		}
		services = append(services, link.container.RegisteredWebServices()...)
		link, _ = link.delegate.(*Server)
	}
	// Built on the first request for a document, as kube-apiserver's: a server no client
	// asked holds neither the documents nor their building's garbage (about 20 MiB of RSS).
	svc := openapi.NewLazyService(func() (*openapi.Documents, error) {
		docs, err := openapi.Build(services, openapi.Config{
			Title:       s.cfg.Name,
			Version:     version.Get().GitVersion,
			Namer:       openapi.NewDefinitionNamer(schemes...),
			Definitions: openapi.MergeDefinitions(defs...),
		})
		if err != nil {
			s.log.Error("cannot build the OpenAPI documents", "err", err)
			return nil, err
		}
		return docs, nil
	})
	svc.Install(s.mux)
	s.paths = append(s.paths, openapi.PathV2, openapi.PathV3)
	for link := DelegationTarget(s); link != nil; link = link.NextDelegate() {
		if src, ok := link.(OpenAPISource); ok {
			src.ServeOpenAPI(svc)
		}
	}
	if src, ok := s.proxyHandler().(OpenAPISource); ok {
		src.ServeOpenAPI(svc)
	}
	return nil
}

// OpenAPISource is implemented by a link of the chain, or a ProxyHandler, whose OpenAPI
// documents change while the server runs (custom resources, aggregated servers): PrepareRun
// hands it the Service that serves the chain's documents, to which it adds its own
// (openapi.Service.SetSource) now and on every change, as apiextensions-apiserver's and
// kube-aggregator's OpenAPI controllers update kube-apiserver's.
type OpenAPISource interface {
	ServeOpenAPI(svc *openapi.Service)
}

// installIndex serves "/" with {"paths": [...]}, every path the chain lists, as
// kube-apiserver's index.
func (s *Server) installIndex() {
	set := map[string]bool{}
	for d := DelegationTarget(s); d != nil; d = d.NextDelegate() {
		for _, p := range d.ListedPaths() {
			set[p] = true
		}
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	s.mux.Handle("/{$}", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteJSON(w, http.StatusOK, map[string][]string{"paths": paths})
	}))
}

// readinessChecks are the checks only /readyz runs: "shutdown", failing once shutdown began,
// and "poststarthook/<name>" per hook, failing until the hook returned nil.
func (p *PreparedServer) readinessChecks() []HealthChecker {
	checks := []HealthChecker{NamedCheck("shutdown", func(*http.Request) error {
		if p.shuttingDown.Load() {
			return errors.New("the server is shutting down")
		}
		return nil
	})}
	names := make([]string, 0, len(p.hooks))
	for name := range p.hooks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		done := &atomic.Bool{}
		p.hooksDone[name] = done
		checks = append(checks, NamedCheck("poststarthook/"+name, func(*http.Request) error {
			if !done.Load() {
				return errors.New("not finished")
			}
			return nil
		}))
	}
	return checks
}

// Ready returns a channel closed once every post-start hook has returned nil.
func (p *PreparedServer) Ready() <-chan struct{} { return p.ready }

// Run listens on addr ("127.0.0.1:6443"; port 0 picks a free one) and serves as Serve does.
func (p *PreparedServer) Run(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	return p.Serve(ctx, ln)
}

// Serve serves HTTP on ln (and closes it) until ctx ends or a post-start hook fails: HTTP/1.1,
// and HTTP/2 on TLS connections that negotiated it (see newHTTPServer for the limits). It
// runs the post-start hooks once serving. When ctx ends it shuts down gracefully, as
// kube-apiserver's graceful termination: /readyz fails at once; the server goes on serving
// everything for Config.ShutdownDelayDuration; then the post-start hooks' context ends and the
// pre-shutdown hooks run (still served); then long-running requests (watches) are told to
// end, the listener closes, and in-flight requests drain for up to Config.ShutdownTimeout
// before the remaining connections are closed. It returns nil after a shutdown that ctx
// caused, and the error otherwise.
func (p *PreparedServer) Serve(ctx context.Context, ln net.Listener) error {
	srv, err := newHTTPServer(withLongRunningStop(p.Handler(), p.stopping), p.cfg.HTTP2MaxStreamsPerConnection)
	if err != nil {
		_ = ln.Close()
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	hookCtx, cancelHooks := context.WithCancel(ctx)
	defer cancelHooks()
	hookErr := make(chan error, 1)
	go func() { hookErr <- p.runHooks(hookCtx) }()

	select {
	case <-ctx.Done():
		p.shuttingDown.Store(true)
		if delay := p.cfg.ShutdownDelayDuration; delay > 0 {
			p.log.Info("shutdown initiated: /readyz fails; serving on for the shutdown delay", "delay", delay)
			select {
			case <-time.After(delay):
			case err = <-serveErr:
				return fmt.Errorf("cannot serve: %w", err)
			}
		}
	case err = <-serveErr:
		return fmt.Errorf("cannot serve: %w", err)
	case err = <-hookErr:
	}
	cancelHooks()
	runPreShutdownHooks(p.preShutdown, p.log)
	if shutdownErr := p.shutdown(srv); err == nil {
		err = shutdownErr
	}
	return err
}

// shutdown ends watches, stops listening and drains srv, as described at Serve.
func (p *PreparedServer) shutdown(srv *http.Server) error {
	p.shuttingDown.Store(true)
	p.stop()
	timeout := p.cfg.ShutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	p.log.Info("shutting down: not accepting new connections, draining in-flight requests", "timeout", timeout)
	drained := make(chan error, 1)
	go func() { drained <- srv.Shutdown(ctx) }()
	sweep := time.NewTicker(goAwaySweepInterval)
	defer sweep.Stop()
	for {
		select {
		case err := <-drained:
			if err != nil {
				p.log.Warn("in-flight requests did not drain in time; closing connections", "timeout", timeout)
				_ = srv.Close()
			}
			return nil
		case <-sweep.C:
			sweepGoAway(srv)
		}
	}
}

// goAwaySweepInterval is how often shutdown tells HTTP/2 connections again to go away while
// in-flight requests drain.
const goAwaySweepInterval = 250 * time.Millisecond

// sweepGoAway sends GOAWAY to every HTTP/2 connection of srv that was not sent one yet, and
// closes the idle connections, without waiting for anything. http.Server.Shutdown sends GOAWAY
// once, to the HTTP/2 connections registered at that moment: a connection accepted before the
// listener closed whose TLS handshake ends just after is never told, holds no stream, and
// keeps Shutdown waiting for its whole timeout (golang/go#81153; a server's own loopback
// clients reconnect exactly then). Each Shutdown call runs the sweep again, and one with an
// ended context returns after it.
func sweepGoAway(srv *http.Server) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = srv.Shutdown(ctx)
}

// runHooks runs every post-start hook concurrently and closes Ready once all returned nil. It
// returns the first hook error, or nil.
func (p *PreparedServer) runHooks(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(p.hooks))
	for name, hook := range p.hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := hook(ctx); err != nil {
				errs <- fmt.Errorf("cannot run post-start hook %q: %w", name, err)
				return
			}
			p.hooksDone[name].Store(true)
			p.log.Debug("post-start hook finished", "hook", name)
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	close(p.ready)
	<-ctx.Done()
	return nil
}

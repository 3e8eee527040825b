package filters

import (
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/metrics"
)

// ChainConfig configures BuildHandlerChain.
type ChainConfig struct {
	// Log receives request logs (debug level) and recovered panics.
	Log *slog.Logger
	// RequestTimeout bounds each non-long-running request (see WithRequestDeadline;
	// non-positive means DefaultRequestTimeout).
	RequestTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound concurrent reads and writes
	// (see WithMaxInFlightLimit); zero means DefaultMaxRequestsInFlight and
	// DefaultMaxMutatingRequestsInFlight, negative means no limit.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// Authenticator, when not nil, authenticates every request (auth.WithAuthentication);
	// AuditPolicy and AuditBackend, when both are set, audit it (audit.WithAudit, and
	// audit.WithFailedAuthenticationAudit for the requests authentication refuses);
	// Authorizer, when not nil, authorizes impersonation (WithImpersonation) and the request
	// (authorization.WithAuthorization).
	Authenticator auth.Authenticator
	AuditPolicy   *audit.Policy
	AuditBackend  audit.Backend
	Authorizer    authorization.Authorizer
	// Metrics, when not nil, counts and times every resource request and the health,
	// discovery, /version and OpenAPI requests (metrics.WithMetrics),
	// those refused by the in-flight limit included.
	Metrics *metrics.Metrics
	// TracerProvider, when not nil, records a span per request (WithTracing); nil: no
	// tracing, no cost.
	TracerProvider trace.TracerProvider
}

// BuildHandlerChain wraps apiHandler in the server's filters. The order is spelled out here
// and nowhere else; the last filter applied runs first (outermost). Outermost, writes get
// requests but watches get their stack grown in one step (WithRequestStack, apigen's own); then, as k8s.io/apiserver's
// DefaultBuildHandlerChain: panic recovery, request logging, request info (parsed once for
// the filters after it), the request deadline (so that it bounds authentication webhooks,
// audit's reading of the body and every in-flight slot, as kube's timeout filters sit
// outside them), authentication, tracing, audit, impersonation, authorization, metrics,
// max-in-flight, then the warning recorder (admission's warnings to the response). Twice,
// outermost and between authorization and metrics, a request whose client has gone (its
// context ended: an HTTP/2 stream reset) is dropped (WithCanceledRequestsDropped, apigen's
// own), so that a rapid-reset flood costs neither the chain nor a slot nor storage.
func BuildHandlerChain(apiHandler http.Handler, cfg ChainConfig) http.Handler {
	reads, writes := cfg.MaxRequestsInFlight, cfg.MaxMutatingRequestsInFlight
	if reads == 0 {
		reads = DefaultMaxRequestsInFlight
	}
	if writes == 0 {
		writes = DefaultMaxMutatingRequestsInFlight
	}
	log := cfg.Log
	h := apiHandler
	h = WithWarningRecorder(h)
	h = WithMaxInFlightLimit(h, reads, writes)
	if cfg.Metrics != nil {
		h = cfg.Metrics.WithMetrics(h)
	}
	h = WithCanceledRequestsDropped(h)
	if cfg.Authorizer != nil {
		h = authorization.WithAuthorization(h, cfg.Authorizer, log)
		h = WithImpersonation(h, cfg.Authorizer, log)
	}
	if cfg.AuditPolicy != nil && cfg.AuditBackend != nil {
		h = audit.WithAudit(h, cfg.AuditPolicy, cfg.AuditBackend)
	}
	// Inside authentication, as kube's: the span knows the user, and only privileged ones
	// continue their own traces.
	h = WithTracing(h, cfg.TracerProvider)
	if cfg.Authenticator != nil {
		failed := auth.Unauthorized()
		if cfg.AuditPolicy != nil && cfg.AuditBackend != nil {
			failed = audit.WithFailedAuthenticationAudit(failed, cfg.AuditPolicy, cfg.AuditBackend)
		}
		h = auth.WithAuthentication(h, cfg.Authenticator, failed, log)
	}
	h = WithRequestDeadline(h, cfg.RequestTimeout)
	h = WithRequestInfo(h)
	h = WithRequestLogging(h, log)
	h = WithPanicRecovery(h, log)
	h = WithRequestStack(h)
	h = WithCanceledRequestsDropped(h)
	return h
}

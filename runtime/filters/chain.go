package filters

import (
	"log/slog"
	"net/http"
	"time"

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
	// AuditPolicy and AuditLog, when both are set, audit it (audit.WithAudit); Authorizer,
	// when not nil, authorizes it (authorization.WithAuthorization).
	Authenticator auth.Authenticator
	AuditPolicy   *audit.Policy
	AuditLog      *audit.Log
	Authorizer    authorization.Authorizer
	// Metrics, when not nil, counts and times every resource request and the health,
	// discovery, /version and OpenAPI requests (metrics.WithMetrics),
	// those refused by the in-flight limit included.
	Metrics *metrics.Metrics
}

// BuildHandlerChain wraps apiHandler in the server's filters. The order is spelled out here
// and nowhere else; the last filter applied runs first (outermost), as k8s.io/apiserver's
// DefaultBuildHandlerChain: panic recovery, request logging, request info (parsed once for
// the filters after it), authentication, audit, authorization, metrics, max-in-flight, then
// the request deadline.
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
	h = WithRequestDeadline(h, cfg.RequestTimeout)
	h = WithMaxInFlightLimit(h, reads, writes)
	if cfg.Metrics != nil {
		h = cfg.Metrics.WithMetrics(h)
	}
	if cfg.Authorizer != nil {
		h = authorization.WithAuthorization(h, cfg.Authorizer, log)
	}
	if cfg.AuditPolicy != nil && cfg.AuditLog != nil {
		h = audit.WithAudit(h, cfg.AuditPolicy, cfg.AuditLog)
	}
	if cfg.Authenticator != nil {
		h = auth.WithAuthentication(h, cfg.Authenticator, log)
	}
	h = WithRequestInfo(h)
	h = WithRequestLogging(h, log)
	h = WithPanicRecovery(h, log)
	return h
}

package server

import (
	"net/http"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// DelegationTarget is a link of the delegation chain, as k8s.io/apiserver's
// DelegationTarget: what a Server hands requests it does not serve to, and what it merges
// health checks and post-start hooks from.
type DelegationTarget interface {
	// UnprotectedHandler serves the link's requests without the handler chain's filters;
	// requests the link does not serve go on to its own delegate.
	UnprotectedHandler() http.Handler
	// HealthzChecks returns the link's own health checks (not its delegates').
	HealthzChecks() []HealthChecker
	// PostStartHooks returns the link's own post-start hooks by name.
	PostStartHooks() map[string]PostStartHookFunc
	// ListedPaths returns the paths the link serves, sorted, for the root index.
	ListedPaths() []string
	// NextDelegate returns the link's delegate, or nil at the end of the chain.
	NextDelegate() DelegationTarget
}

// NewEmptyDelegate returns the end of a chain: it serves nothing, answering every request
// with a 404 metav1.Status (reason NotFound, message "the server could not find the requested
// resource"), and has no checks, hooks or paths.
func NewEmptyDelegate() DelegationTarget {
	return emptyDelegate{}
}

type emptyDelegate struct{}

func (emptyDelegate) UnprotectedHandler() http.Handler             { return NotFoundHandler() }
func (emptyDelegate) HealthzChecks() []HealthChecker               { return nil }
func (emptyDelegate) PostStartHooks() map[string]PostStartHookFunc { return nil }
func (emptyDelegate) ListedPaths() []string                        { return nil }
func (emptyDelegate) NextDelegate() DelegationTarget               { return nil }

// NotFoundHandler answers every request with a 404 metav1.Status, as kube-apiserver's
// notfoundhandler.
func NotFoundHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteStatus(w, responsewriters.NotFound())
	})
}

package authorization

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// Decision is an authorizer's answer, as k8s.io/apiserver's authorizer.Decision.
type Decision int

const (
	// NoOpinion leaves the decision to the next authorizer; when none has one, the request is
	// denied.
	NoOpinion Decision = iota
	// Allow lets the request through; later authorizers are not asked.
	Allow
	// Deny refuses the request; later authorizers are not asked.
	Deny
)

// Attributes are what a request asks to do: who, and the RequestInfo of what (verb,
// namespace, API group, resource, subresource, name, or a non-resource path).
type Attributes struct {
	User *request.User
	request.RequestInfo
}

// Authorizer decides on a request, as k8s.io/apiserver's authorizer.Authorizer: the decision,
// a reason for it (shown to the client after a denial), and an error when it could not decide
// (a webhook that did not answer), which the union treats as NoOpinion.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Decision, string, error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize implements Authorizer.
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// AlwaysAllow allows everything (--authorization-mode=AlwaysAllow); its RulesFor lists "*".
func AlwaysAllow() Authorizer { return alwaysAllow{} }

// AlwaysDeny denies everything (--authorization-mode=AlwaysDeny); its RulesFor lists nothing.
func AlwaysDeny() Authorizer { return alwaysDeny{} }

type alwaysAllow struct{}

// Authorize implements Authorizer.
func (alwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return Allow, "", nil
}

type alwaysDeny struct{}

// Authorize implements Authorizer.
func (alwaysDeny) Authorize(context.Context, Attributes) (Decision, string, error) {
	return Deny, "", nil
}

// Union asks each authorizer in turn; the first Allow or Deny wins, as kube-apiserver's
// union of --authorization-mode. When none decides it returns NoOpinion, the reasons given,
// and the errors met, joined. The union is a RuleResolver over its members (see RulesFor).
func Union(authorizers ...Authorizer) Authorizer { return union(authorizers) }

type union []Authorizer

// Authorize implements Authorizer.
func (u union) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var reasons []string
	var errs []error
	for _, z := range u {
		d, reason, err := z.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if d == Allow || d == Deny {
			return d, reason, nil
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	return NoOpinion, strings.Join(reasons, "; "), errors.Join(errs...)
}

// WithAuthorization authorizes every request before h serves it, as k8s.io/apiserver's
// filters.WithAuthorization; the decision ("allow" or "forbid") and the authorizer's reason
// are the audit annotations authorization.k8s.io/decision and authorization.k8s.io/reason.
// A request no authorizer allows while one of them failed (a webhook that did not answer) is
// 500 InternalError, as kube-apiserver answers it. It needs the user (auth.WithAuthentication runs first) and
// reads the RequestInfo (request.InfoFor); a path that does not parse is
// 400. A request not allowed gets 403 Forbidden with kube-apiserver's message, e.g.
// `databases.db.example.com "main" is forbidden: User "bob" cannot delete resource
// "databases" in API group "db.example.com" in the namespace "team-a"`.
func WithAuthorization(h http.Handler, z Authorizer, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := request.UserFrom(r.Context())
		if !ok {
			responsewriters.WriteError(w, apierrors.NewInternalError(errors.New("no user in the request context: authentication must run before authorization")))
			return
		}
		info, err := request.InfoFor(r)
		if err != nil {
			responsewriters.WriteError(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		a := Attributes{User: u, RequestInfo: *info}
		d, reason, err := z.Authorize(r.Context(), a)
		if d == Allow {
			audit.AddAnnotation(r.Context(), audit.DecisionAnnotation, "allow")
			audit.AddAnnotation(r.Context(), audit.ReasonAnnotation, reason)
			h.ServeHTTP(w, r)
			return
		}
		if err != nil {
			// As kube-apiserver: an authorizer that could not decide (a webhook down) and no
			// other that allows is a server error, not a denial.
			if log != nil {
				log.Warn("authorizer error", "user", u.Name, "verb", a.Verb, "path", r.URL.Path, "err", err)
			}
			audit.AddAnnotation(r.Context(), audit.ReasonAnnotation, "internal error")
			responsewriters.WriteError(w, apierrors.NewInternalError(err))
			return
		}
		audit.AddAnnotation(r.Context(), audit.DecisionAnnotation, "forbid")
		audit.AddAnnotation(r.Context(), audit.ReasonAnnotation, reason)
		responsewriters.WriteError(w, Forbidden(a, reason))
	})
}

// Forbidden is the 403 error kube-apiserver's responsewriters.Forbidden writes for a: its
// message says who cannot do what, and where; reason, when given, follows it.
func Forbidden(a Attributes, reason string) error {
	msg := forbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	return apierrors.NewForbidden(gr, a.Name, errors.New(msg))
}

// forbiddenMessage words a denial as kube-apiserver's forbiddenMessage.
func forbiddenMessage(a Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.Name
	}
	if !a.IsResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, resource, a.APIGroup)
}

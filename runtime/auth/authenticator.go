package auth

import (
	"errors"
	"net/http"
	"slices"

	"github.com/apigen-dev/apigen/runtime/request"
)

// Authenticator authenticates a request, as k8s.io/apiserver's authenticator.Request: it
// returns the user and true when the request carries credentials it accepts; nil, false and
// nil when the request carries none of its kind; and an error when it carries credentials of
// its kind that are invalid (an unknown token, a certificate signed by another CA).
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (*request.User, bool, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (*request.User, bool, error)

// AuthenticateRequest implements Authenticator.
func (f AuthenticatorFunc) AuthenticateRequest(r *http.Request) (*request.User, bool, error) {
	return f(r)
}

// Union tries each authenticator in turn and returns the first user one accepts, as
// k8s.io/apiserver's union.New. When none accepts, it returns the errors of those that
// failed, joined, or nil, false, nil when no authenticator saw credentials of its kind.
func Union(authenticators ...Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		var errs []error
		for _, a := range authenticators {
			u, ok, err := a.AuthenticateRequest(r)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok {
				return u, true, nil
			}
		}
		return nil, false, errors.Join(errs...)
	})
}

// FailOnError runs a, and falls back to fallback only when a saw no credentials, never when
// it rejected some, as k8s.io/apiserver's union.NewFailOnError does with the anonymous
// authenticator: a request with a wrong token is refused, not served as anonymous.
func FailOnError(a, fallback Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		u, ok, err := a.AuthenticateRequest(r)
		if ok || err != nil {
			return u, ok, err
		}
		return fallback.AuthenticateRequest(r)
	})
}

// WithAuthenticatedGroup adds request.AllAuthenticated to the groups of every user a
// accepts, except the anonymous user, as k8s.io/apiserver's group.NewAuthenticatedGroupAdder.
func WithAuthenticatedGroup(a Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		u, ok, err := a.AuthenticateRequest(r)
		if !ok || err != nil || u.Name == request.Anonymous || u.InGroup(request.AllAuthenticated) {
			return u, ok, err
		}
		out := *u
		out.Groups = append(slices.Clip(u.Groups), request.AllAuthenticated)
		return &out, true, nil
	})
}

// AnonymousAuthenticator accepts every request as request.Anonymous in
// request.AllUnauthenticated, as k8s.io/apiserver's anonymous authenticator
// (--anonymous-auth).
func AnonymousAuthenticator() Authenticator {
	return AuthenticatorFunc(func(*http.Request) (*request.User, bool, error) {
		return &request.User{Name: request.Anonymous, Groups: []string{request.AllUnauthenticated}}, true, nil
	})
}

// AnonymousFor accepts requests for paths, and nothing else, as request.Anonymous in
// request.AllUnauthenticated, as kube-apiserver's --anonymous-auth limited to configured
// endpoints (AnonymousAuthConfigurableEndpoints, whose conditions match paths exactly:
// "/readyz" does not match "/readyz/etcd"). Other anonymous requests are not its kind, so they end in 401.
func AnonymousFor(paths ...string) Authenticator {
	anonymous := AnonymousAuthenticator()
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		for _, p := range paths {
			if r.URL.Path == p {
				return anonymous.AuthenticateRequest(r)
			}
		}
		return nil, false, nil
	})
}

package auth

import (
	"log/slog"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apigen-dev/apigen/runtime/responsewriters"

	"github.com/apigen-dev/apigen/runtime/request"
)

// WithAuthentication authenticates every request with a and serves it with the user in its
// context (request.UserFrom), as k8s.io/apiserver's filters.WithAuthentication. A request a
// does not accept is served by failed (nil: Unauthorized, kube-apiserver's 401; the server's
// chain wraps it in audit.WithFailedAuthenticationAudit); the reason a gave is logged at
// debug level, never sent to the client.
func WithAuthentication(h http.Handler, a Authenticator, failed http.Handler, log *slog.Logger) http.Handler {
	if failed == nil {
		failed = Unauthorized()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok, err := a.AuthenticateRequest(r)
		if !ok {
			if log != nil {
				log.Debug("unable to authenticate the request", "path", r.URL.Path, "err", err)
			}
			failed.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), u)))
	})
}

// Unauthorized answers 401 with a metav1.Status of reason Unauthorized and message
// "Unauthorized", as kube-apiserver's filters.Unauthorized.
func Unauthorized() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteError(w, apierrors.NewUnauthorized("Unauthorized"))
	})
}

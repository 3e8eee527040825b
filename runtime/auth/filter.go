package auth

import (
	"log/slog"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// WithAuthentication authenticates every request with a and serves it with the user in its
// context (UserFrom), as k8s.io/apiserver's filters.WithAuthentication. A request a does not
// accept gets 401 with a metav1.Status of reason Unauthorized, as kube-apiserver answers;
// the reason a gave is logged at debug level, never sent to the client.
func WithAuthentication(h http.Handler, a Authenticator, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok, err := a.AuthenticateRequest(r)
		if !ok {
			if log != nil {
				log.Debug("unable to authenticate the request", "path", r.URL.Path, "err", err)
			}
			responsewriters.WriteError(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		h.ServeHTTP(w, r.WithContext(WithUser(r.Context(), u)))
	})
}

package filters

import (
	"net/http"

	"github.com/apigen-dev/apigen/runtime/request"
)

// WithRequestInfo parses the RequestInfo of every request once and puts it in the request's
// context, where authorization, audit and metrics read it (request.InfoFor), as
// k8s.io/apiserver's filters.WithRequestInfo. A path that does not parse is left without
// one; the filters that need it answer for it.
func WithRequestInfo(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, err := request.ParseRequestInfo(r); err == nil {
			r = r.WithContext(request.WithRequestInfo(r.Context(), info))
		}
		h.ServeHTTP(w, r)
	})
}

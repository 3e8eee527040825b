package filters

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apigen-dev/apigen/runtime/request"
)

// DefaultRequestTimeout bounds a non-long-running request when Config.RequestTimeout is
// zero, as kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = time.Minute

// WithRequestDeadline gives every request that is not long-running (see isLongRunning: watches
// are bounded by their own timeoutSeconds) a context deadline of timeout after it arrived, or
// of the request's "timeout" query parameter (a Go duration such as "10s") when that is
// positive and shorter, as k8s.io/apiserver's filters.WithRequestDeadline. Storage calls made
// with the request's context then end when the deadline passes, so a request to an etcd that
// does not answer fails with a 503/504 metav1.Status instead of hanging. An unparsable
// "timeout" is a 400 BadRequest. A non-positive timeout means DefaultRequestTimeout.
func WithRequestDeadline(h http.Handler, timeout time.Duration) http.Handler {
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		d := timeout
		if v := request.QueryParam(r, "timeout"); v != "" {
			user, err := time.ParseDuration(v)
			if err != nil {
				responsewriters.WriteStatus(w, &apierrors.NewBadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %v", err)).ErrStatus)
				return
			}
			if user > 0 && user < d {
				d = user
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

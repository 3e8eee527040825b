package filters

import (
	"context"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// DefaultRequestTimeout bounds a non-long-running request when Config.RequestTimeout is
// zero, as kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = time.Minute

// WriteDeadlineGrace is how long after a request's deadline its response may still be
// written: time for the 504 Timeout a handler writes when its deadline passes, and no more,
// so that a client that does not read its response holds its connection, goroutine and
// in-flight slot for at most the request timeout and this grace.
const WriteDeadlineGrace = 500 * time.Millisecond

// WithRequestDeadline gives every request that is not long-running (see IsLongRunning:
// watches are bounded by their own timeoutSeconds) a deadline of timeout after it arrived, or
// of the request's "timeout" query parameter (a Go duration such as "10s") when that is
// positive and shorter, as k8s.io/apiserver's filters.WithRequestDeadline. The deadline
// bounds:
//
//   - the request's context: storage calls made with it end when it passes, and the handler
//     answers 504 Timeout;
//   - reading the request body (the connection's or HTTP/2 stream's read deadline, set
//     through http.ResponseController): a client that uploads slowly gets 504 instead of
//     holding its in-flight slot, as kube-apiserver's timeout filter frees it;
//   - writing the response (the write deadline, WriteDeadlineGrace later): a client that does
//     not read its response makes the handler's writes fail, so the handler returns, its slot
//     is given back and the connection is closed.
//
// (net/http clears a connection's write deadline once a response is finished, so a watch on
// the same HTTP/1.1 connection afterwards is not cut by it; HTTP/2 deadlines are per stream.)
// A ResponseWriter that supports no deadlines (a test recorder) keeps only the context's. An
// unparsable "timeout" is a 400 BadRequest. A non-positive timeout means
// DefaultRequestTimeout.
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
		deadline := time.Now().Add(d)
		ctx, cancel := context.WithDeadline(r.Context(), deadline)
		defer cancel()
		// Errors mean the writer has no deadlines (http.ErrNotSupported): the context still holds.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(deadline)
		_ = rc.SetWriteDeadline(deadline.Add(WriteDeadlineGrace))
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

package filters

import (
	"context"
	"fmt"
	"net/http"
	"sync"
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
// the same HTTP/1.1 connection afterwards is not cut by it; HTTP/2 deadlines are per stream:
// see streamDeadlines.)
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
		if r.ProtoMajor == 2 {
			defer streamDeadlines(rc, deadline).stop()
		} else {
			_ = rc.SetReadDeadline(deadline)
			_ = rc.SetWriteDeadline(deadline.Add(WriteDeadlineGrace))
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// streamTimers are the read and write deadlines of one HTTP/2 stream, kept by the filter
// rather than by golang.org/x/net/http2. x/net (v0.61) arms a stream's deadline timer in its
// connection's serving loop, some time after the handler asked for it; when the client reset
// the stream in between (the common case in a rapid-reset flood), the stream is already
// closed and nothing stops that timer, which then holds the stream, its request and contexts
// until the deadline, --request-timeout later: 20,000 reset streams held about 10 MiB of
// live heap for a minute (TestRapidReset in runtime/app). These timers are the filter's own
// and are stopped when the handler returns; when one fires it sets the stream's deadline to
// the past, which x/net applies at once, without a timer: the body read fails with
// os.ErrDeadlineExceeded, or the stream is reset and the handler's writes fail.
type streamTimers struct {
	mu          sync.Mutex
	done        bool
	read, write *time.Timer
}

// streamDeadlines starts the timers of a stream whose request has the given deadline: the
// read deadline then, the write deadline WriteDeadlineGrace later.
func streamDeadlines(rc *http.ResponseController, deadline time.Time) *streamTimers {
	st := &streamTimers{}
	expire := func(set func(time.Time) error) func() {
		return func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			if !st.done { // the stream's writer is not used once its handler returned
				_ = set(time.Unix(1, 0))
			}
		}
	}
	st.read = time.AfterFunc(time.Until(deadline), expire(rc.SetReadDeadline))
	st.write = time.AfterFunc(time.Until(deadline.Add(WriteDeadlineGrace)), expire(rc.SetWriteDeadline))
	return st
}

// stop stops the timers; it is called when the handler returns.
func (st *streamTimers) stop() {
	st.read.Stop()
	st.write.Stop()
	st.mu.Lock()
	st.done = true
	st.mu.Unlock()
}

package endpoints

import (
	"net/http"
	"sync"
	"time"

	"github.com/emicklei/go-restful/v3"
)

// terminatedWatchDrain is how long a watch response whose watcher storage cut off (a
// watch cache's watcher that fell behind by its buffer and the dispatch budget) may take to
// write the events still buffered and end cleanly; after it the response is cut: its
// HTTP/2 stream reset, or its HTTP/1.1 connection closed. A client that reads drains a
// full buffer in far less; one that does not read holds its handler blocked in a write,
// which only the write deadline ends.
const terminatedWatchDrain = 2 * time.Second

// streamTerminator ends a watch response from outside its handler, for
// request.WithWatchTerminator: terminate gives the handler terminatedWatchDrain to finish,
// then sets the response's write deadline in the past, which fails a write blocked on a
// client that does not read (x/net/http2 resets the stream; net/http fails the
// connection's write), as kube-apiserver's cacher terminates an unresponsive watcher.
// Safe for concurrent use.
type streamTerminator struct {
	rc    *http.ResponseController
	mu    sync.Mutex
	timer *time.Timer // armed by terminate
	done  bool        // the handler has returned: the response is no longer ours
}

// newStreamTerminator returns the terminator of the response w writes: through go-restful's
// Response, which does not unwrap (http.ResponseController needs Unwrap to reach the
// server's per-stream write deadline), to the writer it wraps.
func newStreamTerminator(w http.ResponseWriter) *streamTerminator {
	if r, ok := w.(*restful.Response); ok {
		w = r.ResponseWriter
	}
	return &streamTerminator{rc: http.NewResponseController(w)}
}

// terminate arms the cut; it does not block, and only the first call counts.
func (t *streamTerminator) terminate() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done || t.timer != nil {
		return
	}
	t.timer = time.AfterFunc(terminatedWatchDrain, t.cut)
}

// cut fails the response's pending and later writes, unless the handler has returned.
func (t *streamTerminator) cut() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		_ = t.rc.SetWriteDeadline(time.Unix(1, 0))
	}
}

// exit is called when the handler returns: a cut not yet made is not made.
func (t *streamTerminator) exit() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	if t.timer != nil {
		t.timer.Stop()
	}
}

package bench

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// maxFloorBody bounds a request body the floor server reads.
const maxFloorBody = 1 << 20

// FloorServer is the least any server of the benchmark's API does for the requests the get
// row and the watch fan-outs send, as an http.Handler; served by Go's net/http on the
// benchmark's transport (HTTPS with HTTP/2 and a client certificate, or plain HTTP), its
// rates and latencies are floors: no Go server of the API, whatever else it does, does better
// on the machine with the same clients (loadgen's -floor prints them beside the targets).
//
//   - GET: with watch=true, a stream of the events the PUTs make, flushed whenever no more
//     are waiting; otherwise the fixed object bytes it was made with.
//   - PUT: the body becomes a MODIFIED event (the body as its object, unparsed) sent to every
//     watcher, and the answer is 200 with a new resourceVersion; a watcher 256 events behind
//     is cut off, as the watch cache cuts one off.
//   - POST: 201 with resourceVersion "1" (what RunWatchFanout's namespace and object
//     creation need).
//
// Nothing is stored, decoded, validated or encoded. Safe for concurrent use.
type FloorServer struct {
	object []byte

	mu       sync.Mutex
	rev      int64
	watchers map[chan []byte]struct{}
}

// NewFloorServer returns a floor server whose gets answer object.
func NewFloorServer(object []byte) *FloorServer {
	return &FloorServer{object: object, rev: 1, watchers: map[chan []byte]struct{}{}}
}

// ServeHTTP implements http.Handler.
func (f *FloorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	switch r.Method {
	case http.MethodGet:
		if r.URL.Query().Get("watch") == "true" {
			f.watch(w, r)
			return
		}
		h["Content-Length"] = []string{strconv.Itoa(len(f.object))}
		_, _ = w.Write(f.object)
	case http.MethodPut:
		body, err := io.ReadAll(io.LimitReader(r.Body, maxFloorBody))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		line := make([]byte, 0, len(body)+40)
		line = append(line, `{"type":"MODIFIED","object":`...)
		line = append(append(line, body...), "}\n"...)
		rev := f.broadcast(line)
		_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"` + strconv.FormatInt(rev, 10) + `"}}`))
	case http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"1"}}`))
	default:
		http.Error(w, "method not served", http.StatusMethodNotAllowed)
	}
}

// broadcast sends line to every watcher, cutting off those whose buffer is full, and returns
// the new resourceVersion.
func (f *FloorServer) broadcast(line []byte) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rev++
	for c := range f.watchers {
		select {
		case c <- line:
		default:
			delete(f.watchers, c)
			close(c)
		}
	}
	return f.rev
}

// watch streams the events broadcast from now on until the client leaves or is cut off.
func (f *FloorServer) watch(w http.ResponseWriter, r *http.Request) {
	events := make(chan []byte, inputBuffer)
	f.mu.Lock()
	f.watchers[events] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.watchers, events)
		f.mu.Unlock()
	}()
	rc := http.NewResponseController(w)
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case line, ok := <-events:
			if !ok {
				return
			}
			if _, err := w.Write(line); err != nil {
				return
			}
			if len(events) == 0 && rc.Flush() != nil {
				return
			}
		}
	}
}

// inputBuffer is how many events a floor watcher may fall behind: the watch cache's.
const inputBuffer = 256

// ServedObject returns the body the server answers the get row's first request with: one
// stored object, in the JSON a client receives.
func (s *Scenario) ServedObject(ctx context.Context) ([]byte, error) {
	api := s.newAPIClient()
	defer api.Close()
	return api.GetBody(ctx, listNamespace, objectName(0))
}

// FloorOp returns the NewOp of the get row's requests (ServerOp(OpGet): the same paths, one
// client and connection each) sent to another server, at serverURL with tlsConfig (nil for
// plain HTTP), instead of the scenario's. The connections stay open until ctx ends.
func (s *Scenario) FloorOp(ctx context.Context, serverURL string, tlsConfig *tls.Config) (NewOp, error) {
	return s.opThrough(ctx, OpGet, func() *APIClient { return NewAPIClient(serverURL, s.tmpl, tlsConfig) })
}

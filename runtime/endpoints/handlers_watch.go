package endpoints

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// minWatchTimeout is the shortest server-chosen watch duration; a watch without
// timeoutSeconds lasts between it and twice it, as kube-apiserver's --min-request-timeout.
const minWatchTimeout = 30 * time.Minute

// watchTimeout returns how long a watch runs: timeoutSeconds when positive, else a random
// duration in [minWatchTimeout, 2*minWatchTimeout) so clients do not reconnect in lockstep.
func watchTimeout(opts *metainternalversion.ListOptions) time.Duration {
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		return time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return time.Duration(float64(minWatchTimeout) * (1 + rand.Float64()))
}

// serveWatch streams the watch's events as newline-separated JSON metav1.WatchEvent frames
// (objects in the URL's version, or Tables or PartialObjectMetadata when Accept asks for
// them, as metadata informers do; an ERROR event's object is a metav1.Status), flushing
// whenever no more events are ready, until timeoutSeconds, the client disconnects or the
// watch ends, as kube's WatchServer; a streaming list is gzipped for a client that accepts
// it (watchStream).
func (s *scope) serveWatch(ctx context.Context, w http.ResponseWriter, req *http.Request, watcher rest.Watcher,
	opts *metainternalversion.ListOptions) {
	out, err := negotiateOutput(req, false, s.tableConvertor() != nil)
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, watchTimeout(opts))
	defer cancel()
	term := newStreamTerminator(w)
	defer term.exit()
	// The events are only encoded, each from a copy (watchLine): storage may hand every
	// watcher its cache's own objects. A watch cache that cuts the watcher off ends the
	// stream through term.
	wctx := request.WithWatchTerminator(request.WithSharedWatchObjects(request.WithReadOnlyResults(ctx)), term.terminate)
	watcherIface, err := watcher.Watch(wctx, opts)
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	defer watcherIface.Stop()
	stream := newWatchStream(w, req, opts)
	defer stream.Close()
	w.Header().Set("Content-Type", mediaJSON)
	w.Header().Set("Transfer-Encoding", "chunked")
	if stream.gzip {
		setGzipHeaders(w.Header())
	}
	w.WriteHeader(http.StatusOK)
	_ = stream.flusher.Flush()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-watcherIface.ResultChan():
			if !ok {
				return
			}
			frame, err := s.watchLine(ctx, req, out, ev)
			if err != nil {
				frame = watchEventJSON(watch.Error, mustStatusJSON(err))
			}
			if _, err := stream.Write(frame); err != nil {
				return
			}
			// Flush once the events ready are written, as kube-apiserver's WatchServer: a
			// watcher catching up sends many frames per write.
			if len(watcherIface.ResultChan()) > 0 {
				continue
			}
			if err := stream.Flush(); err != nil {
				return
			}
		}
	}
}

// watchLine returns the line of one event: its frame and a newline. A plain-JSON event of an
// object state is built once per scope and shared by every watcher (frameCache). ev's
// object may be shared with other watchers and storage's cache
// (request.WithSharedWatchObjects): it is only read; what encodes it gets a copy of its
// own, since encoders set its TypeMeta.
func (s *scope) watchLine(ctx context.Context, req *http.Request, out output, ev watch.Event) ([]byte, error) {
	if out == (output{}) {
		data, ok, err := s.frames.get(ev, func() ([]byte, error) {
			raw, err := s.objectJSON(storage.CopyFor(ev.Object, true), ev.Type != watch.Deleted)
			if err != nil {
				return nil, err
			}
			return watchEventJSON(ev.Type, raw), nil
		})
		if ok {
			return data, err
		}
	}
	ev.Object = storage.CopyFor(ev.Object, true)
	frame, err := s.watchFrame(ctx, req, out, ev)
	if err != nil {
		return nil, err
	}
	return append(frame, '\n'), nil
}

// watchFrame encodes one event: its object in the negotiated form inside a WatchEvent.
func (s *scope) watchFrame(ctx context.Context, req *http.Request, out output, ev watch.Event) ([]byte, error) {
	var raw []byte
	var err error
	switch obj := ev.Object.(type) {
	case *metav1.Status:
		status := *obj
		status.Kind, status.APIVersion = "Status", "v1"
		raw, err = json.Marshal(&status)
	default:
		switch {
		case out.as == asTable && ev.Type != watch.Bookmark:
			raw, err = s.encodeTable(ctx, req, obj, out.metaVersion)
		case out.as == asPartialObjectMetadata:
			raw, err = encodePartial(obj, out.metaVersion)
		default:
			raw, err = s.encode(obj, false)
		}
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: raw}})
}

// mustStatusJSON renders err as a Status JSON document; it cannot fail for a Status.
func mustStatusJSON(err error) []byte {
	data, _ := json.Marshal(responsewriters.ErrorStatus(err))
	return data
}

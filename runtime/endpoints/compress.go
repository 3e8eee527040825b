package endpoints

import (
	"net/http"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
)

// gzipThreshold is the body size from which a response is gzipped for a client that accepts
// it, kube-apiserver's defaultGzipThresholdBytes (128 KiB): smaller ones cost more to
// compress than they save.
const gzipThreshold = 128 << 10

// gzipWriters recycles gzip writers at level 1 (BestSpeed), kube-apiserver's level: JSON
// compresses nearly as well as at higher levels for a fraction of the CPU.
// github.com/klauspost/compress's gzip writes the same format as compress/gzip, about twice
// as fast.
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

// acceptsGzip reports whether req's Accept-Encoding names gzip, as kube-apiserver's
// responseContentEncodingSupported (client-go's transport sends "gzip").
func acceptsGzip(req *http.Request) bool {
	for _, h := range req.Header.Values("Accept-Encoding") {
		for _, token := range strings.Split(h, ",") {
			coding, _, _ := strings.Cut(token, ";")
			if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				return true
			}
		}
	}
	return false
}

// setGzipHeaders marks a response as gzipped.
func setGzipHeaders(h http.Header) {
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
}

// isWatchList reports whether a watch is a streaming list (sendInitialEvents=true with
// allowWatchBookmarks), as kube-apiserver's isListWatchRequest: only those watch streams are
// gzipped.
func isWatchList(opts *metainternalversion.ListOptions) bool {
	return opts.SendInitialEvents != nil && *opts.SendInitialEvents && opts.AllowWatchBookmarks
}

// watchStream writes a watch response's frames and flushes them. For a streaming list whose
// client accepts gzip it compresses them, as kube-apiserver's perFlushGzipWriter (its
// WatchListCompression feature, on by default): each flush ends a gzip member (a client's
// gzip reader reads the members as one stream) and returns the gzip writer to the pool, so
// an idle watch holds no compressor. Other watches are written as they are: a watch event
// is small, its stream long-lived, and kube-apiserver does not gzip them.
type watchStream struct {
	w       http.ResponseWriter
	flusher *http.ResponseController
	gzip    bool
	gw      *gzip.Writer // while frames are written between flushes
}

// newWatchStream returns the stream of w for req; gzipped tells whether it compresses (the
// caller sets the headers with setGzipHeaders).
func newWatchStream(w http.ResponseWriter, req *http.Request, opts *metainternalversion.ListOptions) *watchStream {
	return &watchStream{w: w, flusher: http.NewResponseController(w), gzip: isWatchList(opts) && acceptsGzip(req)}
}

// Write writes p, compressed for a gzipped stream.
func (s *watchStream) Write(p []byte) (int, error) {
	if !s.gzip {
		return s.w.Write(p)
	}
	if s.gw == nil {
		s.gw = gzipWriters.Get().(*gzip.Writer)
		s.gw.Reset(s.w)
	}
	return s.gw.Write(p)
}

// Flush sends what was written: for a gzipped stream it ends the gzip member and releases
// the writer first.
func (s *watchStream) Flush() error {
	if err := s.Close(); err != nil {
		return err
	}
	return s.flusher.Flush()
}

// Close ends the gzip member being written, if any, and releases its writer; the stream may
// be written to again (a new member starts). The member's data is sync-flushed before its
// end, as kube-apiserver's: a gzip reader returns data ending a member only once it has read
// the next member's header, which may be an event away, and a flushed member ends with an
// empty block.
func (s *watchStream) Close() error {
	if s.gw == nil {
		return nil
	}
	err := s.gw.Flush()
	if cerr := s.gw.Close(); err == nil {
		err = cerr
	}
	s.gw.Reset(nil)
	gzipWriters.Put(s.gw)
	s.gw = nil
	return err
}

package filters

import (
	"log/slog"
	"net/http"
	"time"
)

// WithRequestLogging logs every request at debug level once it is served: method, path,
// status code and latency.
func WithRequestLogging(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !log.Enabled(r.Context(), slog.LevelDebug) {
			h.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		log.Debug("request", "method", r.Method, "path", r.URL.RequestURI(), "code", rec.code, "latency", time.Since(start))
	})
}

// statusRecorder remembers the status code written through it. It forwards Flush so that
// watches keep streaming, and Unwrap for http.ResponseController.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

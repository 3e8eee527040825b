package endpoints

import (
	"net/http"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
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

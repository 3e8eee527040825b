package warning

import (
	"context"
	"net/http"
	"sync"
	"unicode/utf8"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// The limits of a response's warnings, in runes, as kube-apiserver's.
const (
	truncateAtTotalRunes = 4 * 1024
	truncateItemRunes    = 256
)

type recorderKey struct{}

// Recorder adds warnings to one response's headers. Safe for concurrent use (validating
// webhooks run in parallel).
type Recorder struct {
	mu         sync.Mutex
	header     http.Header
	recorded   map[string]bool
	ordered    []string
	written    int
	truncating bool
}

// NewRecorder returns a recorder writing to header (a ResponseWriter's, before it is
// written).
func NewRecorder(header http.Header) *Recorder {
	return &Recorder{header: header, recorded: map[string]bool{}}
}

// WithRecorder returns a copy of ctx carrying r.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// AddWarning adds text as a warning to the response of ctx's request, if ctx carries a
// recorder; empty text and a text already added are ignored.
func AddWarning(ctx context.Context, text string) {
	if r, ok := ctx.Value(recorderKey{}).(*Recorder); ok {
		r.Add(text)
	}
}

// Add adds text as a `Warning: 299 - "<text>"` header, as kube's recorder: once the warnings
// exceed 4096 runes in all, every warning (those already written too) is cut to 256 runes.
func (r *Recorder) Add(text string) {
	if text == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if (r.written >= truncateAtTotalRunes && r.truncating) || r.recorded[text] {
		return
	}
	r.recorded[text] = true
	r.ordered = append(r.ordered, text)
	n := utf8.RuneCountInString(text)
	if r.truncating || r.written+n <= truncateAtTotalRunes {
		r.write(text)
		return
	}
	r.truncating, r.written = true, 0
	r.header.Del("Warning")
	for _, t := range r.ordered {
		r.write(t)
	}
}

// write adds one header, cut to truncateItemRunes while truncating.
func (r *Recorder) write(text string) {
	if r.truncating && utf8.RuneCountInString(text) > truncateItemRunes {
		text = string([]rune(text)[:truncateItemRunes])
	}
	h, err := utilnet.NewWarningHeader(299, "-", text)
	if err != nil {
		return
	}
	r.written += utf8.RuneCountInString(text)
	r.header.Add("Warning", h)
}

package filters

import (
	"net/http"
	"strings"
)

// writeStackBytes is the stack, beyond what the filters use when they start, that a write
// reaches: the handler chain (tens of frames) and field management, whose structured-merge-diff
// walks recurse a few frames of several hundred bytes per level of the object (about 30 KiB
// for an object of a couple of kilobytes of JSON).
const writeStackBytes = 32 << 10

// readStackBytes is the stack, beyond what the filters use when they start, that a get or a
// list reaches: the handler chain, client certificate verification (crypto/x509) and the
// registry's checks, which took a new goroutine's stack from 8 to 16 and then 32 KiB.
const readStackBytes = 16 << 10

// WithRequestStack grows the goroutine stack of every request but a watch, in one step,
// before the request is served: by writeStackBytes for a POST, PUT or PATCH, by
// readStackBytes otherwise (GrowStack). A request's goroutine starts with a small stack that
// the runtime doubles, copying it and adjusting every frame on it, each time a call
// overflows it; a write's field management otherwise makes it do that two or three times
// with the whole handler chain on the stack (about a sixth of an update's field
// management), and a get twice (11% of a get's server CPU at 64 clients, in profiles of
// loadgen's get). Growing it here, with a few frames on it, is one cheap copy. A watch
// (?watch= in the query) is served as it comes: it holds its goroutine for minutes, and its
// serving loop needs little stack.
func WithRequestStack(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch:
			growStack(0)
		case !strings.Contains(r.URL.RawQuery, "watch="):
			growReadStack(0)
		}
		h.ServeHTTP(w, r)
	})
}

// GrowStack makes sure the calling goroutine's stack has room for writeStackBytes more than
// it uses now, growing it in one copy if it has not (the stack is not shrunk until a garbage
// collection finds it mostly unused).
func GrowStack() {
	growStack(0)
}

// growStack has a frame of writeStackBytes: calling it makes the runtime grow the stack to
// fit it, once (the check is the function's prologue). i is always 0: it keeps the compiler
// from discarding the array, which is declared in a branch never taken so that it is never
// zeroed (zeroing 32 KiB of new stack was half of what a call cost).
//
//go:noinline
func growStack(i int) byte {
	if i != 0 {
		var frame [writeStackBytes]byte
		frame[i%writeStackBytes] = 1
		return frame[i/2%writeStackBytes]
	}
	return 0
}

// growReadStack is growStack with a frame of readStackBytes.
//
//go:noinline
func growReadStack(i int) byte {
	if i != 0 {
		var frame [readStackBytes]byte
		frame[i%readStackBytes] = 1
		return frame[i/2%readStackBytes]
	}
	return 0
}

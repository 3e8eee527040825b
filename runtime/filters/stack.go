package filters

import "net/http"

// writeStackBytes is the stack, beyond what the filters use when they start, that a write
// reaches: the handler chain (tens of frames) and field management, whose structured-merge-diff
// walks recurse a few frames of several hundred bytes per level of the object (about 30 KiB
// for an object of a couple of kilobytes of JSON).
const writeStackBytes = 32 << 10

// WithWriteStack grows the goroutine stack of every POST, PUT and PATCH, in one step, by
// writeStackBytes before the request is served (GrowStack). A request's goroutine starts with a
// small stack that the runtime doubles, copying it and adjusting every frame on it, each time
// a call overflows it; a write's field management otherwise makes it do that two or three
// times with the whole handler chain on the stack, which cost about a sixth of an update's
// field management. Growing it here, with a few frames on it, is one cheap copy. Reads, which
// do not need the stack, are served as they come.
func WithWriteStack(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			GrowStack()
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
// fit it, once. i is always 0; it keeps the compiler from discarding the array.
//
//go:noinline
func growStack(i int) byte {
	var frame [writeStackBytes]byte
	frame[i] = 1
	return frame[i/2]
}

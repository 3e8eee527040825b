package fieldmanager

// updateStackBytes is the stack a FieldManager.Update or Apply of an object of a few
// kilobytes of JSON reaches (structured-merge-diff walks objects recursively, a few frames of
// several hundred bytes per level), measured with BenchmarkFieldManager's goroutine rows.
const updateStackBytes = 32 << 10

// GrowStack grows the calling goroutine's stack, if it is smaller, to hold updateStackBytes
// more than it uses now, in one copy: a goroutine starts with a small stack (a few
// kilobytes) that the runtime doubles, copying it each time, whenever a call overflows it,
// and a request's goroutine running field management otherwise grows it two or three times.
// The stack is not shrunk until a garbage collection finds it mostly unused.
func GrowStack() {
	growStack(0)
}

// growStack has a frame of updateStackBytes: calling it makes the runtime grow the stack
// once to fit it. i is always 0; it keeps the compiler from discarding the array.
//
//go:noinline
func growStack(i int) byte {
	var frame [updateStackBytes]byte
	frame[i] = 1
	return frame[i/2]
}

package request

import "context"

// watchTerminatorKey marks a context whose watch's consumer can be ended from below.
type watchTerminatorKey struct{}

// WithWatchTerminator returns ctx carrying terminate, which ends the consumer of a watch
// opened with ctx: the watch handler registers one that ends its response stream (the
// client resumes from the last resourceVersion it read). A watch cache calls it through
// TerminateWatch when it cuts off a watcher that fell behind, as kube-apiserver's cacher
// terminates a watcher whose buffer stays full, so that a consumer blocked writing to a
// client that does not read is ended too, not only the events no longer sent to it.
// terminate must be safe to call from any goroutine, more than once, and must not block.
func WithWatchTerminator(ctx context.Context, terminate func()) context.Context {
	return context.WithValue(ctx, watchTerminatorKey{}, terminate)
}

// TerminateWatch calls the terminator WithWatchTerminator put in ctx, if any, and reports
// whether there was one.
func TerminateWatch(ctx context.Context) bool {
	terminate, _ := ctx.Value(watchTerminatorKey{}).(func())
	if terminate == nil {
		return false
	}
	terminate()
	return true
}

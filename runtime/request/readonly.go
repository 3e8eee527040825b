package request

import "context"

// readOnlyKey marks a context whose reads' results are only read.
type readOnlyKey struct{}

// WithReadOnlyResults returns ctx marked for reads whose results the caller only reads
// (encodes into a response, filters, prints) and never changes, not even a label or a list
// item's field: a storage.Interface (runtime/storage) may then hand out from Get, GetList and the events of
// Watch objects that share
// their maps, slices and pointers with its caches instead of deep copies (each object or list
// item still has its own top-level struct and ObjectMeta value, so its resourceVersion is its
// own). kube-apiserver's watch cache hands out its objects to the same kind of readers without
// copies, on the same condition. The HTTP get, list and watch handlers mark their requests
// so; a caller that changes what it reads must not.
func WithReadOnlyResults(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

// ReadOnlyResults reports whether ctx was marked by WithReadOnlyResults.
func ReadOnlyResults(ctx context.Context) bool {
	v, _ := ctx.Value(readOnlyKey{}).(bool)
	return v
}

// sharedObjectsKey marks a context whose watch events' objects are never written to.
type sharedObjectsKey struct{}

// WithSharedWatchObjects returns ctx marked for a watch whose consumer never writes to the
// events' objects, not even their TypeMeta (it copies an object before encoding it, as
// encoders set the kind): a storage.Interface may then hand every such watcher the very
// object it holds, one per event, instead of a copy per watcher and event, as
// kube-apiserver's watch cache hands its watchers one cachingObject per event. The watch
// handler marks its watches so (with WithReadOnlyResults).
func WithSharedWatchObjects(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedObjectsKey{}, true)
}

// SharedWatchObjects reports whether ctx was marked by WithSharedWatchObjects.
func SharedWatchObjects(ctx context.Context) bool {
	v, _ := ctx.Value(sharedObjectsKey{}).(bool)
	return v
}

// transientReadsKey marks a context whose reader reads each object once and keeps none.
type transientReadsKey struct{}

// WithTransientReads returns ctx marked for a reader that reads each object once and keeps
// none of them, such as a controller's relist that keeps only some metadata of each: a
// storage.Interface that keeps recently read objects decoded (a watch cache keeps the
// others compressed) decodes an object for such a reader without keeping it decoded, so
// that one pass over every object does not hold them all decoded afterwards. The garbage
// collector's monitors mark their lists so.
func WithTransientReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, transientReadsKey{}, true)
}

// TransientReads reports whether ctx was marked by WithTransientReads.
func TransientReads(ctx context.Context) bool {
	v, _ := ctx.Value(transientReadsKey{}).(bool)
	return v
}

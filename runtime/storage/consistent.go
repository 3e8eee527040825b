package storage

import (
	"context"
	"fmt"
	"strconv"
)

// RevisionReader is implemented by a storage.Interface that can say which revision a quorum
// read made now would see (etcd3: the header revision of a linearizable read), as
// kube-apiserver's storage.Interface.GetCurrentResourceVersion. A watch cache serves a
// consistent read once it has caught up with that revision.
type RevisionReader interface {
	// CurrentRevision returns the backend's current revision, read linearizably.
	// Errors: Unreachable when the backend does not answer within ctx.
	CurrentRevision(ctx context.Context) (int64, error)
}

// ProgressRequester is implemented by a storage.Interface whose watches can be asked to
// report progress, as kube-apiserver's RequestWatchProgress: every watch opened with a
// context carrying the same gRPC metadata as ctx soon gets a BOOKMARK (when it asked for
// them with ListOptions.ProgressNotify) at the backend's current revision, even when no
// object it watches changed.
type ProgressRequester interface {
	// RequestWatchProgress asks for the progress BOOKMARKs; it returns once the request is
	// sent. Errors: the backend's, or ctx's.
	RequestWatchProgress(ctx context.Context) error
}

// ParseResourceVersion parses a client-given resourceVersion; "" is 0.
// Errors: InvalidObj for anything but a non-negative decimal.
func ParseResourceVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, NewInvalidObjError("", fmt.Sprintf("invalid resource version %q", rv))
	}
	return n, nil
}

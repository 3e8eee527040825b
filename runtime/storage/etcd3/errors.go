package etcd3

import (
	"context"
	"errors"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// Kubernetes' wording for expired reads (k8s.io/apiserver/pkg/storage/etcd3/store.go and
// watcher.go); clients and humans recognise it.
const (
	listExpiredMessage     = "The resourceVersion for the provided list is too old."
	watchExpiredMessage    = "The resourceVersion for the provided watch is too old."
	continueExpiredMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter."
	// inconsistentContinueMessage is kube-apiserver's message for a 410 that carries a token
	// continuing at the latest revision.
	inconsistentContinueMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
)

// interpretError turns an etcd client error for key into a storage error: a compacted
// revision becomes Expired with expiredMsg, a future revision a "Too large resource version"
// error, the end of the caller's context (its deadline, or a cancellation) Timeout, an object
// etcd refuses as too large RequestTooLarge, an etcd that cannot answer Unreachable, and
// anything else Internal. A *storage.StatusError passes through unchanged. Writes classify
// their own failures first (see put), as only they can leave an outcome unknown.
func interpretError(err error, key, expiredMsg string, rv int64) error {
	var se *storage.StatusError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return err
	case errors.Is(err, rpctypes.ErrCompacted):
		return storage.NewExpiredError(rv, expiredMsg)
	case errors.Is(err, rpctypes.ErrFutureRev):
		return tooLargeResourceVersion(rv, 0)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		status.Code(err) == codes.DeadlineExceeded, status.Code(err) == codes.Canceled:
		return storage.NewTimeoutError(key, false, err)
	case isRequestTooLarge(err):
		return storage.NewRequestTooLargeError(key, err)
	case isUnavailable(err):
		return storage.NewUnreachableError(key, err)
	}
	return &storage.StatusError{Code: storage.ErrCodeInternal, Key: key, Message: "cannot access " + key, Err: err}
}

// isRequestTooLarge reports whether err is etcd refusing a request over its
// --max-request-bytes ("etcdserver: request is too large"), or gRPC refusing to send one over
// the client's largest message.
func isRequestTooLarge(err error) bool {
	if errors.Is(err, rpctypes.ErrRequestTooLarge) || errors.Is(err, rpctypes.ErrGRPCRequestTooLarge) {
		return true
	}
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "larger than max")
}

// isUnavailable reports whether err is a gRPC or etcd error meaning etcd cannot answer now.
func isUnavailable(err error) bool {
	if errors.Is(err, rpctypes.ErrTimeout) || errors.Is(err, rpctypes.ErrNoLeader) ||
		errors.Is(err, rpctypes.ErrLeaderChanged) || errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail) ||
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost) {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

// tooLargeResourceVersion reports a requested revision newer than etcd's current one, as
// kube-apiserver's "Too large resource version" (504 Timeout with Retry-After). current is 0
// when unknown.
func tooLargeResourceVersion(rv, current int64) error {
	return storage.NewResourceVersionTooLargeError(rv, current)
}

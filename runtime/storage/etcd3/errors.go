package etcd3

import (
	"context"
	"errors"
	"fmt"

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
// error, a deadline or an unavailable etcd Unreachable, a cancelled ctx stays a context
// error, and anything else Internal. A *storage.StatusError passes through unchanged.
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
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("cannot access %s: %w", key, err)
	case errors.Is(err, context.DeadlineExceeded), isUnavailable(err):
		return storage.NewUnreachableError(key, err)
	}
	return &storage.StatusError{Code: storage.ErrCodeInternal, Key: key, Message: "cannot access " + key, Err: err}
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
// kube-apiserver's "Too large resource version" (a 504 Timeout there, hence Unreachable
// here: the client may retry). current is 0 when unknown.
func tooLargeResourceVersion(rv, current int64) error {
	msg := fmt.Sprintf("Too large resource version: %d", rv)
	if current > 0 {
		msg += fmt.Sprintf(", current: %d", current)
	}
	return &storage.StatusError{Code: storage.ErrCodeUnreachable, ResourceVersion: rv, Message: msg}
}

package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// OptimisticLockErrorMsg is the message of the 409 Conflict an update with a stale
// resourceVersion gets, as k8s.io/apiserver's registry.OptimisticLockErrorMsg.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// interpretError maps a storage error about the object name of resource to the apierrors
// status a client sees, as kube-apiserver's storeerr.InterpretGetError and friends:
// KeyNotFound -> 404, KeyExists -> 409 AlreadyExists, Conflict -> 409, Expired -> 410,
// Unreachable (etcd down, nothing written) -> 503, InvalidObj -> 400, Timeout (the request's
// deadline passed) -> 504 in the words of kube-apiserver's timeout filter, saying so when a
// write may have been applied, ResourceVersionTooLarge -> 504 with kube's cause and
// Retry-After: 1, RequestTooLarge -> 413. Errors that already carry an API status pass
// through; anything else becomes 500 InternalError.
func interpretError(err error, resource schema.GroupResource, name string) error {
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	var se *storage.StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case storage.ErrCodeKeyNotFound:
			return apierrors.NewNotFound(resource, name)
		case storage.ErrCodeKeyExists:
			return apierrors.NewAlreadyExists(resource, name)
		case storage.ErrCodeConflict:
			return apierrors.NewConflict(resource, name, errors.New(se.Message))
		case storage.ErrCodeExpired:
			expired := apierrors.NewResourceExpired(se.Message)
			expired.ErrStatus.ListMeta.Continue = se.Continue // a paged list's way on, as kube-apiserver's
			return expired
		case storage.ErrCodeUnreachable:
			return apierrors.NewServiceUnavailable(se.Error())
		case storage.ErrCodeInvalidObj:
			return apierrors.NewBadRequest(se.Message)
		case storage.ErrCodeTimeout:
			return apierrors.NewTimeoutError(se.Message, 0)
		case storage.ErrCodeResourceVersionTooLarge:
			return tooLargeResourceVersion(se.Message)
		case storage.ErrCodeRequestTooLarge:
			return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("%s %q is too large to store in etcd: %v", resource, name, se.Err))
		}
		return apierrors.NewInternalError(se)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return apierrors.NewTimeoutError(timeoutMessage, 0)
	}
	return apierrors.NewInternalError(err)
}

// timeoutMessage is kube-apiserver's message for a request whose deadline passed, after
// "Timeout: ".
const timeoutMessage = "request did not complete within the allotted timeout"

// resourceVersionTooLargeRetrySeconds is the Retry-After of a read at a revision storage has
// not reached, as kube-apiserver's watch cache gives it.
const resourceVersionTooLargeRetrySeconds = 1

// tooLargeResourceVersion is kube-apiserver's storage.NewTooLargeResourceVersionError: 504
// Timeout with msg ("Too large resource version: N, current: M"), Retry-After and a cause of
// type ResourceVersionTooLarge, which client-go's reflector recognizes.
func tooLargeResourceVersion(msg string) error {
	err := apierrors.NewTimeoutError(msg, resourceVersionTooLargeRetrySeconds)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

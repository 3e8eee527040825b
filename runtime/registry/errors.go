package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// OptimisticLockErrorMsg is the message of the 409 Conflict an update with a stale
// resourceVersion gets, as k8s.io/apiserver's registry.OptimisticLockErrorMsg.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// interpretError maps a storage error about the object name of resource to the apierrors
// status a client sees, as kube-apiserver's storeerr.InterpretGetError and friends:
// KeyNotFound -> 404, KeyExists -> 409 AlreadyExists, Conflict -> 409, Expired -> 410,
// Unreachable -> 503, InvalidObj -> 400, a deadline -> 504. Errors that already carry an
// API status pass through; anything else becomes 500 InternalError.
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
		}
		return apierrors.NewInternalError(se)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return apierrors.NewTimeoutError(fmt.Sprintf("cannot finish the request on %s %q in time", resource, name), 0)
	case errors.Is(err, context.Canceled):
		return apierrors.NewTimeoutError("the request was canceled", 0)
	}
	return apierrors.NewInternalError(err)
}

package storage

import (
	"errors"
	"fmt"
)

// ErrorCode classifies a storage error; the registry maps each to an HTTP status.
type ErrorCode int

// The storage error classes, as k8s.io/apiserver/pkg/storage's ErrCode*.
const (
	ErrCodeKeyNotFound ErrorCode = iota + 1 // 404 NotFound
	ErrCodeKeyExists                        // 409 AlreadyExists
	ErrCodeConflict                         // 409 Conflict (resourceVersion or precondition)
	ErrCodeInvalidObj                       // 400/422: undecodable object, bad continue token
	ErrCodeExpired                          // 410 Expired: compacted revision or continue token
	ErrCodeUnreachable                      // 503: the backend does not answer; nothing was written
	ErrCodeInternal                         // 500
	// ErrCodeTimeout is kube's ErrCodeTimeout: the caller's deadline passed (504). For a
	// write, StatusError.Unknown says whether it may have been applied.
	ErrCodeTimeout
	// ErrCodeResourceVersionTooLarge: a read asked for a revision the backend has not
	// reached, even after waiting (504 with Retry-After, as kube's
	// NewTooLargeResourceVersionError).
	ErrCodeResourceVersionTooLarge
	// ErrCodeRequestTooLarge: the backend refused an object too large to store (413).
	ErrCodeRequestTooLarge
)

// StatusError is the error every storage.Interface method returns for a storage condition.
type StatusError struct {
	Code ErrorCode
	// Key is the storage key concerned; ResourceVersion the revision involved, if any.
	Key             string
	ResourceVersion int64
	// Message is a human-readable description suitable for a metav1.Status message.
	Message string
	// Continue, on an Expired error of a paged list, is a continue token that goes on with
	// the list at the latest revision (an inconsistent list), which the 410 Status carries in
	// its metadata.continue, as kube-apiserver's.
	Continue string
	// Unknown, on a Timeout or Unreachable error of a write, says that the write was handed
	// to the backend and may have been applied: a client must read before it writes again.
	Unknown bool
	// Current, on a ResourceVersionTooLarge error, is the backend's revision when the wait
	// ended.
	Current int64
	// Err is the underlying cause, if any.
	Err error
}

// Error returns Message, followed by the cause when there is one.
func (e *StatusError) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the underlying cause.
func (e *StatusError) Unwrap() error { return e.Err }

// NewKeyNotFoundError reports that nothing is stored at key.
func NewKeyNotFoundError(key string, rv int64) error {
	return &StatusError{Code: ErrCodeKeyNotFound, Key: key, ResourceVersion: rv, Message: fmt.Sprintf("key not found: %s", key)}
}

// NewKeyExistsError reports that Create found key taken.
func NewKeyExistsError(key string, rv int64) error {
	return &StatusError{Code: ErrCodeKeyExists, Key: key, ResourceVersion: rv, Message: fmt.Sprintf("key exists: %s", key)}
}

// NewConflictError reports a resourceVersion or precondition mismatch on key; msg says which.
func NewConflictError(key string, rv int64, msg string) error {
	return &StatusError{Code: ErrCodeConflict, Key: key, ResourceVersion: rv, Message: msg}
}

// NewInvalidObjError reports an object or token that cannot be decoded or is not allowed.
func NewInvalidObjError(key, msg string) error {
	return &StatusError{Code: ErrCodeInvalidObj, Key: key, Message: msg}
}

// NewExpiredError reports a resourceVersion older than the backend's compacted revision;
// msg is the Kubernetes wording, e.g. "The provided continue parameter is too old ...".
func NewExpiredError(rv int64, msg string) error {
	return &StatusError{Code: ErrCodeExpired, ResourceVersion: rv, Message: msg}
}

// NewInconsistentContinueError reports that a paged list's revision was compacted; token
// (made with EncodeContinue and revision -1) goes on with the list at the latest revision.
func NewInconsistentContinueError(token, msg string) error {
	return &StatusError{Code: ErrCodeExpired, Message: msg, Continue: token}
}

// NewUnreachableError reports that the backend did not answer for key.
func NewUnreachableError(key string, err error) error {
	return &StatusError{Code: ErrCodeUnreachable, Key: key, Message: "storage is unreachable", Err: err}
}

// NewTimeoutError reports that the caller's deadline passed before the operation on key
// finished; unknown says that a write was handed to the backend and may have been applied.
func NewTimeoutError(key string, unknown bool, err error) error {
	msg := "request did not complete within the allotted timeout"
	if unknown {
		msg = "request did not complete within the allotted timeout; the write may have been applied"
	}
	return &StatusError{Code: ErrCodeTimeout, Key: key, Message: msg, Unknown: unknown, Err: err}
}

// NewResourceVersionTooLargeError reports that the backend's revision, current, has not
// reached rv, the one a read asked for, in kube-apiserver's words ("Too large resource
// version: rv, current: current").
func NewResourceVersionTooLargeError(rv, current int64) error {
	return &StatusError{Code: ErrCodeResourceVersionTooLarge, ResourceVersion: rv, Current: current,
		Message: fmt.Sprintf("Too large resource version: %d, current: %d", rv, current)}
}

// NewRequestTooLargeError reports that the backend refused to store the object at key because
// it is too large (etcd's "etcdserver: request is too large").
func NewRequestTooLargeError(key string, err error) error {
	return &StatusError{Code: ErrCodeRequestTooLarge, Key: key, Message: "the object is too large to store", Err: err}
}

// NewInternalError reports a fault inside the storage layer.
func NewInternalError(msg string) error {
	return &StatusError{Code: ErrCodeInternal, Message: msg}
}

func hasCode(err error, code ErrorCode) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// IsNotFound reports whether err is ErrCodeKeyNotFound.
func IsNotFound(err error) bool { return hasCode(err, ErrCodeKeyNotFound) }

// IsExists reports whether err is ErrCodeKeyExists.
func IsExists(err error) bool { return hasCode(err, ErrCodeKeyExists) }

// IsConflict reports whether err is ErrCodeConflict.
func IsConflict(err error) bool { return hasCode(err, ErrCodeConflict) }

// IsInvalidObj reports whether err is ErrCodeInvalidObj.
func IsInvalidObj(err error) bool { return hasCode(err, ErrCodeInvalidObj) }

// IsExpired reports whether err is ErrCodeExpired.
func IsExpired(err error) bool { return hasCode(err, ErrCodeExpired) }

// IsUnreachable reports whether err is ErrCodeUnreachable.
func IsUnreachable(err error) bool { return hasCode(err, ErrCodeUnreachable) }

// IsTimeout reports whether err is ErrCodeTimeout.
func IsTimeout(err error) bool { return hasCode(err, ErrCodeTimeout) }

// IsResourceVersionTooLarge reports whether err is ErrCodeResourceVersionTooLarge.
func IsResourceVersionTooLarge(err error) bool { return hasCode(err, ErrCodeResourceVersionTooLarge) }

// IsRequestTooLarge reports whether err is ErrCodeRequestTooLarge.
func IsRequestTooLarge(err error) bool { return hasCode(err, ErrCodeRequestTooLarge) }

package storage

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// Interface stores objects of one resource under string keys. Objects passed in and out are
// internal (hub) objects; the implementation encodes them to the resource's storage version.
// Every method is safe for concurrent use. Errors are *StatusError values from this package
// (test them with IsNotFound, IsExists, IsConflict, IsExpired, ...), or context errors.
//
// resourceVersion semantics are kube-apiserver's: an object's metadata.resourceVersion is the
// backend revision that last modified it, as a decimal string; a list's is the revision of
// the read.
type Interface interface {
	// Create stores obj under key if nothing is there yet and decodes the stored object
	// (with its new resourceVersion) into out. obj's resourceVersion must be empty.
	// Errors: KeyExists when the key exists.
	Create(ctx context.Context, key string, obj, out runtime.Object) error

	// Get decodes the object at key into out. Errors: KeyNotFound, unless
	// opts.IgnoreNotFound, in which case out is left as its zero value.
	Get(ctx context.Context, key string, opts GetOptions, out runtime.Object) error

	// GetList decodes every object under the key prefix (a key ending in "/") that matches
	// opts.Predicate into listObj (a pointer to a list type with an Items slice), and sets
	// the list's resourceVersion, continue token and remainingItemCount.
	// Errors: Expired (410) for a compacted revision or continue token; InvalidObj for a
	// malformed continue token.
	GetList(ctx context.Context, key string, opts ListOptions, listObj runtime.Object) error

	// GuaranteedUpdate reads the object at key, calls tryUpdate with a fresh copy, and writes
	// the result if the stored revision has not moved; on a lost race it reads again and
	// retries, as kube-apiserver's GuaranteedUpdate. tryUpdate signals a client-side conflict
	// (a stale resourceVersion the caller asked for) by returning a Conflict error, which is
	// returned as is. When the encoded result equals the stored bytes, nothing is written and
	// the resourceVersion is kept. The stored result is decoded into dest.
	// Errors: KeyNotFound (unless ignoreNotFound, in which case tryUpdate sees a zero object),
	// Conflict / InvalidObj from preconditions, or any error tryUpdate returns.
	GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
		preconditions *Preconditions, tryUpdate UpdateFunc) error

	// Delete removes the object at key if preconditions hold and validateDeletion (may be
	// nil) accepts the current object, decoding the last stored state into out.
	// Errors: KeyNotFound, Conflict (precondition failed), or validateDeletion's error.
	Delete(ctx context.Context, key string, out runtime.Object, preconditions *Preconditions,
		validateDeletion ValidateObjectFunc) error

	// Watch streams changes to the object at key, or to every object under a key prefix
	// (a key ending in "/"), after opts.ResourceVersion ("" and "0" first send ADDED for
	// the current state; see ListOptions.SendInitialEvents for streaming lists).
	// Errors: Expired (410) when the start revision has been compacted.
	Watch(ctx context.Context, key string, opts ListOptions) (watch.Interface, error)
}

// UpdateFunc computes the new state of an object from its current state. It must not modify
// input. Returning an error aborts the update with that error.
type UpdateFunc func(input runtime.Object) (output runtime.Object, err error)

// ValidateObjectFunc checks an object before a delete (or update) is committed.
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// GetOptions tunes Get.
type GetOptions struct {
	// IgnoreNotFound makes a missing key return a zero object and no error.
	IgnoreNotFound bool
	// ResourceVersion "" reads the latest state (quorum read); "0" any state; N a state at
	// least as new as N.
	ResourceVersion string
}

// ListOptions tunes GetList and Watch, as k8s.io/apiserver's storage.ListOptions.
type ListOptions struct {
	// ResourceVersion and ResourceVersionMatch are as in metav1.ListOptions.
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	// Predicate selects objects and pages lists.
	Predicate SelectionPredicate
	// Recursive is true when key is a prefix ("/registry/group/resource/ns/") rather than
	// one object's key.
	Recursive bool
	// ProgressNotify asks Watch for BOOKMARK events (metav1.ListOptions.AllowWatchBookmarks).
	ProgressNotify bool
	// SendInitialEvents (streaming lists): when true, Watch first sends ADDED for every
	// current object, then a BOOKMARK annotated "k8s.io/initial-events-end": "true".
	SendInitialEvents *bool
}

// SelectionPredicate selects objects by labels and fields and pages lists, as
// k8s.io/apiserver's storage.SelectionPredicate. A nil Label or Field selects everything.
type SelectionPredicate struct {
	Label labels.Selector
	Field fields.Selector
	// GetAttrs returns the object's labels and selectable fields ("metadata.name", ...).
	// Required when Field selects on anything.
	GetAttrs AttrFunc
	// Limit is the page size; 0 means no limit. Continue is the token of the previous page.
	Limit    int64
	Continue string
}

// AttrFunc returns the label and field sets a predicate matches an object against.
type AttrFunc func(obj runtime.Object) (labels.Set, fields.Set, error)

// Empty reports whether the predicate selects everything.
func (p SelectionPredicate) Empty() bool {
	return (p.Label == nil || p.Label.Empty()) && (p.Field == nil || p.Field.Empty())
}

// Matches reports whether obj satisfies the label and field selectors.
func (p SelectionPredicate) Matches(obj runtime.Object) (bool, error) {
	if p.Empty() {
		return true, nil
	}
	if p.GetAttrs == nil {
		return false, NewInternalError("selection predicate has selectors but no GetAttrs")
	}
	l, f, err := p.GetAttrs(obj)
	if err != nil {
		return false, err
	}
	if p.Label != nil && !p.Label.Matches(l) {
		return false, nil
	}
	if p.Field != nil && !p.Field.Matches(f) {
		return false, nil
	}
	return true, nil
}

// Preconditions must hold for a Delete or GuaranteedUpdate to proceed, as
// metav1.Preconditions: a nil field is not checked.
type Preconditions struct {
	UID             *types.UID
	ResourceVersion *string
}

// Check reports a Conflict, in kube-apiserver's words, when obj (stored at key) does not
// satisfy p, as k8s.io/apiserver's Preconditions.Check; a nil p always holds. An obj without
// object metadata is an InternalError.
func (p *Preconditions) Check(key string, obj runtime.Object) error {
	if p == nil {
		return nil
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return NewInternalError(fmt.Sprintf("cannot check preconditions on %T: %v", obj, err))
	}
	if p.UID != nil && *p.UID != acc.GetUID() {
		return NewConflictError(key, 0, fmt.Sprintf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, acc.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != acc.GetResourceVersion() {
		return NewConflictError(key, 0, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
			*p.ResourceVersion, acc.GetResourceVersion()))
	}
	return nil
}

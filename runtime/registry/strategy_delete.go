package registry

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// GarbageCollectionPolicy is what happens by default to the dependents of a deleted object
// (those whose metadata.ownerReferences name it) when the delete request sets neither
// propagationPolicy nor orphanDependents, as kube's rest.GarbageCollectionPolicy.
type GarbageCollectionPolicy string

// The policies a kind may declare.
const (
	// DeleteDependents: the garbage collector deletes the dependents in the background
	// (propagationPolicy Background). The default of every kind that declares nothing.
	DeleteDependents GarbageCollectionPolicy = "DeleteDependents"
	// OrphanDependents: the deleted object gets the "orphan" finalizer and the garbage
	// collector removes it from its dependents' ownerReferences before it goes (as kube's
	// extensions/v1beta1 and apps/v1beta1 kinds).
	OrphanDependents GarbageCollectionPolicy = "OrphanDependents"
	// Unsupported: the kind cannot take part in garbage collection; deletes never add the
	// "orphan" or "foregroundDeletion" finalizers, whatever the request asks.
	Unsupported GarbageCollectionPolicy = "Unsupported"
)

// GarbageCollectionDeleteStrategy is implemented by a Strategy whose kind has a default
// GarbageCollectionPolicy other than DeleteDependents, as kube's
// rest.GarbageCollectionDeleteStrategy. A generated strategy gets it from a method of the same
// name written beside the generated code.
type GarbageCollectionDeleteStrategy interface {
	// DefaultGarbageCollectionPolicy returns the kind's default policy.
	DefaultGarbageCollectionPolicy(ctx context.Context) GarbageCollectionPolicy
}

// GracefulDeleteStrategy is implemented by a Strategy whose kind is deleted gracefully, as
// kube's rest.RESTGracefulDeleteStrategy (Pods): a delete sets deletionTimestamp to now plus
// the grace period and deletionGracePeriodSeconds, and leaves the object in storage until a
// delete with a zero grace period (a controller's, once the object has wound down) removes
// it. Kinds without it are deleted at once and ignore gracePeriodSeconds.
type GracefulDeleteStrategy interface {
	// CheckGracefulDelete reports whether obj is deleted gracefully; when it is, it must leave
	// options.GracePeriodSeconds set (defaulting it when the request gave none), in seconds.
	CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool
}

// beforeDelete decides how obj (a copy the caller may change) is deleted under options, as
// kube's rest.BeforeDelete after validation: graceful when the kind is deleted gracefully and
// obj now gets (or gets a shorter) grace period, in which case deletionTimestamp,
// deletionGracePeriodSeconds and generation of obj are set; pending when a graceful deletion
// with a grace period no longer than the one asked is already under way. Negative grace
// periods count as 1 second. options.GracePeriodSeconds may be defaulted.
func (e *Store) beforeDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) (graceful, pending bool, err error) {
	m, err := accessor(obj)
	if err != nil {
		return false, false, err
	}
	one := int64(1)
	if g := options.GracePeriodSeconds; g != nil && *g < 0 {
		options.GracePeriodSeconds = &one
	}
	if g := m.GetDeletionGracePeriodSeconds(); g != nil && *g < 0 {
		m.SetDeletionGracePeriodSeconds(&one)
	}
	strategy, ok := e.Strategy.(GracefulDeleteStrategy)
	if !ok {
		return false, false, nil
	}
	if m.GetDeletionTimestamp() != nil {
		graceful, pending = shortenGracePeriod(m, options)
		return graceful, pending, nil
	}
	if !strategy.CheckGracefulDelete(ctx, obj, options) {
		return false, false, nil
	}
	if options.GracePeriodSeconds == nil {
		return false, false, apierrors.NewInternalError(fmt.Errorf("options.GracePeriodSeconds should not be nil"))
	}
	at := metav1.NewTime(time.Now().Add(time.Duration(*options.GracePeriodSeconds) * time.Second)).Rfc3339Copy()
	period := *options.GracePeriodSeconds
	m.SetDeletionTimestamp(&at)
	m.SetDeletionGracePeriodSeconds(&period)
	if m.GetGeneration() > 0 {
		m.SetGeneration(m.GetGeneration() + 1)
	}
	return true, false, nil
}

// shortenGracePeriod is beforeDelete for an object whose graceful deletion has begun: only a
// shorter grace period may be given, moving deletionTimestamp earlier (never into the past; a
// non-zero period that has already run out becomes 1 second, so that the object's controller
// still makes the final delete). An object whose grace period is zero or unset is deleted now.
func shortenGracePeriod(m metav1.Object, options *metav1.DeleteOptions) (graceful, pending bool) {
	current := m.GetDeletionGracePeriodSeconds()
	if current == nil || *current == 0 {
		return false, false
	}
	if options.GracePeriodSeconds == nil {
		options.GracePeriodSeconds = current
		return false, true
	}
	period := *options.GracePeriodSeconds
	if period >= *current {
		return false, true
	}
	at := metav1.NewTime(m.GetDeletionTimestamp().Add(time.Duration(period-*current) * time.Second))
	if now := metav1.Now().Rfc3339Copy(); at.Before(&now) {
		at = now
		if period != 0 {
			period = 1
		}
	}
	m.SetDeletionTimestamp(&at)
	m.SetDeletionGracePeriodSeconds(&period)
	return true, false
}

// gcFinalizers returns the finalizers m should have once deleted under options, and whether
// they differ from m's, as kube's deletionFinalizersForGarbageCollection: "orphan" when the
// dependents are to be orphaned, "foregroundDeletion" when they are to be deleted first. In
// order of precedence: orphanDependents, then propagationPolicy, then a GC finalizer m already
// has, then the kind's DefaultGarbageCollectionPolicy. A kind whose policy is Unsupported
// never gets either.
func (e *Store) gcFinalizers(ctx context.Context, m metav1.Object, options *metav1.DeleteOptions) ([]string, bool) {
	policy := DeleteDependents
	if s, ok := e.Strategy.(GarbageCollectionDeleteStrategy); ok {
		policy = s.DefaultGarbageCollectionPolicy(ctx)
	}
	if policy == Unsupported {
		return m.GetFinalizers(), false
	}
	orphan, foreground := gcIntent(m.GetFinalizers(), options)
	if orphan == nil {
		o := policy == OrphanDependents
		orphan = &o
	}
	var out []string
	for _, f := range m.GetFinalizers() {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if *orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sameSet(out, m.GetFinalizers()) {
		return m.GetFinalizers(), false
	}
	return out, true
}

// gcIntent reads what options (then the GC finalizers in finalizers) ask for: orphan is nil
// when neither says, leaving it to the kind's default policy.
func gcIntent(finalizers []string, options *metav1.DeleteOptions) (orphan *bool, foreground bool) {
	yes, no := true, false
	//nolint:staticcheck // orphanDependents is deprecated, and still honoured, as by kube
	if options != nil && options.OrphanDependents != nil {
		return options.OrphanDependents, false //nolint:staticcheck // as above
	}
	if options != nil && options.PropagationPolicy != nil {
		switch *options.PropagationPolicy {
		case metav1.DeletePropagationOrphan:
			return &yes, false
		case metav1.DeletePropagationForeground:
			return &no, true
		case metav1.DeletePropagationBackground:
			return &no, false
		}
	}
	for _, f := range finalizers {
		switch f {
		case metav1.FinalizerOrphanDependents:
			return &yes, false
		case metav1.FinalizerDeleteDependents:
			return &no, true
		}
	}
	return nil, false
}

// sameSet reports whether a and b hold the same strings, whatever their order.
func sameSet(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			return false
		}
	}
	return true
}

// markAsDeleting sets deletionTimestamp to now (unless it is set and not later) and
// deletionGracePeriodSeconds to 0 on m, an object finalizers keep, bumping generation on the
// first mark, as kube's markAsDeleting.
func markAsDeleting(m metav1.Object, now metav1.Time) {
	if m.GetDeletionTimestamp() == nil && m.GetGeneration() > 0 {
		m.SetGeneration(m.GetGeneration() + 1)
	}
	if ts := m.GetDeletionTimestamp(); ts == nil || ts.After(now.Time) {
		m.SetDeletionTimestamp(&now)
	}
	var zero int64
	m.SetDeletionGracePeriodSeconds(&zero)
}

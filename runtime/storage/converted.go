package storage

import (
	"context"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"net/http"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Converter converts the objects of one resource between the type a storage holds (inner)
// and the type the callers of a Converted storage hold (outer), as kube-apiserver converts
// the objects of a resource that cohabits with another one's storage (events.k8s.io Events,
// stored as core/v1 Events). Every field is required.
type Converter struct {
	// NewInner, NewInnerList, NewOuter and NewOuterList return new empty objects and lists.
	NewInner, NewInnerList, NewOuter, NewOuterList func() runtime.Object
	// ToInner fills inner (a NewInner object) from outer; ToOuter fills outer from inner.
	// Neither changes its input.
	ToInner func(outer, inner runtime.Object) error
	ToOuter func(inner, outer runtime.Object) error
}

// converted is the Interface NewConverted returns.
type converted struct {
	inner Interface
	c     Converter
	// innerType is the type of NewInner's objects, which watch events carry.
	innerType reflect.Type
}

// NewConverted returns an Interface over inner that takes and returns c's outer objects:
// each call converts what it passes to inner to the inner type and what inner returns to the
// outer type, including list items, watch events and the objects predicates, tryUpdate and
// validateDeletion see. The objects are the inner storage's: one key holds one object, read
// and written through either type, and the inner storage's watch cache and leases serve both.
func NewConverted(inner Interface, c Converter) Interface {
	return &converted{inner: inner, c: c, innerType: reflect.TypeOf(c.NewInner())}
}

// StorageVersion implements Versioned: inner's storage version, in which the inner objects
// are stored (events.k8s.io Events are stored as core/v1 Events, as kube-apiserver's).
func (s *converted) StorageVersion() schema.GroupVersion { return StorageVersionOf(s.inner) }

// in converts an outer object to a new inner one.
func (s *converted) in(outer runtime.Object) (runtime.Object, error) {
	inner := s.c.NewInner()
	if err := s.c.ToInner(outer, inner); err != nil {
		return nil, NewInternalError(fmt.Sprintf("cannot convert %T to %T: %v", outer, inner, err))
	}
	return inner, nil
}

// out converts an inner object to a new outer one.
func (s *converted) out(inner runtime.Object) (runtime.Object, error) {
	outer := s.c.NewOuter()
	if err := s.c.ToOuter(inner, outer); err != nil {
		return nil, NewInternalError(fmt.Sprintf("cannot convert %T to %T: %v", inner, outer, err))
	}
	return outer, nil
}

// outInto converts inner into dest, an outer object.
func (s *converted) outInto(inner, dest runtime.Object) error {
	outer, err := s.out(inner)
	if err != nil {
		return err
	}
	reflect.ValueOf(dest).Elem().Set(reflect.ValueOf(outer).Elem())
	return nil
}

// Create implements Interface.
func (s *converted) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	inner, err := s.in(obj)
	if err != nil {
		return err
	}
	stored := s.c.NewInner()
	if err := s.inner.Create(ctx, key, inner, stored); err != nil {
		return err
	}
	return s.outInto(stored, out)
}

// Get implements Interface.
func (s *converted) Get(ctx context.Context, key string, opts GetOptions, out runtime.Object) error {
	stored := s.c.NewInner()
	if err := s.inner.Get(ctx, key, opts, stored); err != nil {
		return err
	}
	return s.outInto(stored, out)
}

// predicate returns p evaluated on the outer form of inner objects.
func (s *converted) predicate(p SelectionPredicate) SelectionPredicate {
	if p.GetAttrs == nil {
		return p
	}
	attrs := p.GetAttrs
	p.GetAttrs = func(obj runtime.Object) (labels.Set, fields.Set, error) {
		outer, err := s.out(obj)
		if err != nil {
			return nil, nil, err
		}
		return attrs(outer)
	}
	return p
}

// GetList implements Interface.
func (s *converted) GetList(ctx context.Context, key string, opts ListOptions, listObj runtime.Object) error {
	opts.Predicate = s.predicate(opts.Predicate)
	innerList := s.c.NewInnerList()
	if err := s.inner.GetList(ctx, key, opts, innerList); err != nil {
		return err
	}
	items, err := meta.ExtractList(innerList)
	if err != nil {
		return NewInternalError(err.Error())
	}
	outItems := make([]runtime.Object, len(items))
	for i, item := range items {
		if outItems[i], err = s.out(item); err != nil {
			return err
		}
	}
	if err := meta.SetList(listObj, outItems); err != nil {
		return NewInternalError(err.Error())
	}
	from, err := meta.ListAccessor(innerList)
	if err != nil {
		return NewInternalError(err.Error())
	}
	to, err := meta.ListAccessor(listObj)
	if err != nil {
		return NewInternalError(err.Error())
	}
	to.SetResourceVersion(from.GetResourceVersion())
	to.SetContinue(from.GetContinue())
	to.SetRemainingItemCount(from.GetRemainingItemCount())
	return nil
}

// GuaranteedUpdate implements Interface: tryUpdate sees and returns outer objects.
func (s *converted) GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *Preconditions, tryUpdate UpdateFunc) error {
	stored := s.c.NewInner()
	err := s.inner.GuaranteedUpdate(ctx, key, stored, ignoreNotFound, preconditions, func(input runtime.Object) (runtime.Object, error) {
		outer, err := s.out(input)
		if err != nil {
			return nil, err
		}
		updated, err := tryUpdate(outer)
		if err != nil {
			return nil, err
		}
		return s.in(updated)
	})
	if err != nil {
		return err
	}
	return s.outInto(stored, dest)
}

// Delete implements Interface: validateDeletion sees the outer object.
func (s *converted) Delete(ctx context.Context, key string, out runtime.Object, preconditions *Preconditions,
	validateDeletion ValidateObjectFunc) error {
	var validate ValidateObjectFunc
	if validateDeletion != nil {
		validate = func(ctx context.Context, obj runtime.Object) error {
			outer, err := s.out(obj)
			if err != nil {
				return err
			}
			return validateDeletion(ctx, outer)
		}
	}
	stored := s.c.NewInner()
	if err := s.inner.Delete(ctx, key, stored, preconditions, validate); err != nil {
		return err
	}
	return s.outInto(stored, out)
}

// Watch implements Interface: events carry outer objects (other objects, such as an
// ERROR event's Status, pass as they are).
func (s *converted) Watch(ctx context.Context, key string, opts ListOptions) (watch.Interface, error) {
	opts.Predicate = s.predicate(opts.Predicate)
	w, err := s.inner.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if ev.Object == nil || reflect.TypeOf(ev.Object) != s.innerType {
			return ev, true
		}
		outer, err := s.out(ev.Object)
		if err != nil {
			return watch.Event{Type: watch.Error, Object: &metav1.Status{Status: metav1.StatusFailure,
				Message: err.Error(), Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError}}, true
		}
		ev.Object = outer
		return ev, true
	}), nil
}

package app

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	eventsv1 "github.com/apigen-dev/apigen/runtime/apis/events/v1"
	eventsinstall "github.com/apigen-dev/apigen/runtime/apis/events/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// eventsV1 is the --runtime-config name of the events.k8s.io Events API.
const eventsV1 = "events.k8s.io/v1"

// EventOptions are kube-apiserver's flags of Events' retention.
type EventOptions struct {
	// EventTTL is how long an Event is kept after its last write (--event-ttl, default 1h),
	// through an etcd lease as kube-apiserver keeps them.
	EventTTL time.Duration
	// LeaseReuseDurationSeconds is how long, in seconds, one etcd lease is given to the
	// Events written after it (--lease-reuse-duration-seconds, default 60); the period is
	// also at most 5 % of --event-ttl, and a lease takes at most 1,000 objects.
	LeaseReuseDurationSeconds int64
}

// AddFlags registers the options on fs, named as kube-apiserver's.
func (o *EventOptions) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.EventTTL, "event-ttl", o.EventTTL, "amount of time to retain events")
	fs.Int64Var(&o.LeaseReuseDurationSeconds, "lease-reuse-duration-seconds", o.LeaseReuseDurationSeconds, "the time in seconds that each lease is reused; a lower value could avoid large number of objects reusing the same lease; note that a too small value may cause performance problems at storage layer")
}

// validate reports the options' errors.
func (o *EventOptions) validate() []string {
	var errs []string
	if o.EventTTL < time.Second {
		errs = append(errs, "--event-ttl must be at least 1s")
	}
	if o.LeaseReuseDurationSeconds < 1 {
		errs = append(errs, "--lease-reuse-duration-seconds must be greater than or equal to 1")
	}
	return errs
}

// serveEvents serves Events as kube-apiserver does: the core group's (core, nil when
// --runtime-config turns api/v1 off) with kube's validation (by request version), table,
// field selectors and --event-ttl, and events.k8s.io/v1 (unless --runtime-config turns it
// off) over the same storage: the core/v1 objects under the etcd prefix "events",
// converted field by field (runtime/apis/events/v1 ToCore, FromCore), with one watch cache
// and one lease manager. It returns events.k8s.io/v1 to serve (nil when off). Errors: a group
// that cannot be built.
func serveEvents(o *Options, scheme *runtime.Scheme, factory registry.StorageFactory, core *registry.APIGroupInfo) ([]*registry.APIGroupInfo, error) {
	var coreStorage storage.Interface
	if core != nil {
		store, ok := core.VersionedResourcesStorageMap["v1"]["events"].(*registry.Store)
		if !ok {
			return nil, fmt.Errorf("cannot build the core API group: events is not served by a registry.Store")
		}
		finishEventStore(store, o.EventTTL, corev1.SchemeGroupVersion, func(obj runtime.Object) *corev1.Event { return obj.(*corev1.Event) })
		store.FieldsFunc = func(obj runtime.Object) fields.Set { return corev1.EventFields(obj.(*corev1.Event)) }
		coreStorage = store.Storage
	}
	if !o.RuntimeConfigEnabled(eventsV1) {
		return nil, nil
	}
	if coreStorage == nil {
		coreinstall.Install(scheme)
		s, err := factory.NewStorage(corev1.Resource("events"), corev1.SchemeGroupVersion, scheme, func() runtime.Object { return &corev1.Event{} })
		if err != nil {
			return nil, fmt.Errorf("cannot create the storage of events: %w", err)
		}
		coreStorage = s
	}
	info, err := eventsinstall.NewAPIGroupInfo(scheme, cohabitingEvents{coreStorage})
	if err != nil {
		return nil, fmt.Errorf("cannot build the events.k8s.io API: %w", err)
	}
	store, ok := info.VersionedResourcesStorageMap["v1"]["events"].(*registry.Store)
	if !ok {
		return nil, fmt.Errorf("cannot build the events.k8s.io API: events is not served by a registry.Store")
	}
	finishEventStore(store, o.EventTTL, eventsv1.SchemeGroupVersion, toCoreEvent)
	store.FieldsFunc = func(obj runtime.Object) fields.Set { return eventsv1.EventFields(obj.(*eventsv1.Event)) }
	return []*registry.APIGroupInfo{info}, nil
}

// finishEventStore gives an Events store kube's strategy (validation by the version of the
// request, version; a PUT may create), table and TTL; core returns the core/v1 form of the store's objects.
func finishEventStore(store *registry.Store, ttl time.Duration, version schema.GroupVersion, core func(runtime.Object) *corev1.Event) {
	store.Strategy = eventStrategy{Strategy: store.Strategy, version: version, core: core}
	store.TableConvertor = eventTable{core: core}
	store.TTL = ttl
	store.AllowCreateOnUpdate = true // as kube's eventStrategy
}

// toCoreEvent returns the core/v1 form of an events.k8s.io/v1 Event.
func toCoreEvent(obj runtime.Object) *corev1.Event {
	out := &corev1.Event{}
	eventsv1.ToCore(obj.(*eventsv1.Event), out)
	return out
}

// cohabiting maps a resource stored as another one's objects to that resource, as
// kube-apiserver's storage factory's cohabitating resources: events.k8s.io events are the
// core group's events (etcd prefix "events").
var cohabiting = map[schema.GroupResource]schema.GroupResource{eventsv1.Resource("events"): corev1.Resource("events")}

// cohabitingEvents is the storage factory of events.k8s.io/v1: its only resource, events,
// is the core group's storage of Events, converted (storage.NewConverted), as
// kube-apiserver's storage factory makes events.k8s.io events cohabit with core events.
type cohabitingEvents struct{ core storage.Interface }

// NewStorage implements registry.StorageFactory for events.events.k8s.io. Errors: any
// other resource.
func (f cohabitingEvents) NewStorage(resource schema.GroupResource, _ schema.GroupVersion, _ *runtime.Scheme,
	_ func() runtime.Object) (storage.Interface, error) {
	if resource != eventsv1.Resource("events") {
		return nil, fmt.Errorf("cannot create storage for %s: the events.k8s.io group stores only events", resource)
	}
	return storage.NewConverted(f.core, storage.Converter{
		NewInner:     func() runtime.Object { return &corev1.Event{} },
		NewInnerList: func() runtime.Object { return &corev1.EventList{} },
		NewOuter:     func() runtime.Object { return &eventsv1.Event{} },
		NewOuterList: func() runtime.Object { return &eventsv1.EventList{} },
		ToInner: func(outer, inner runtime.Object) error {
			eventsv1.ToCore(outer.(*eventsv1.Event), inner.(*corev1.Event))
			return nil
		},
		ToOuter: func(inner, outer runtime.Object) error {
			eventsv1.FromCore(inner.(*corev1.Event), outer.(*eventsv1.Event))
			return nil
		},
	}), nil
}

// eventStrategy is kube's event strategy around the generated one: nothing is prepared on
// create or update (Events have no generation), and validation is kube's
// (corev1.ValidateNewEvent, ValidateEventChange) for requests through version, on the core/v1
// form of the object.
type eventStrategy struct {
	registry.Strategy
	version schema.GroupVersion
	core    func(runtime.Object) *corev1.Event
}

// PrepareForCreate implements registry.Strategy: nothing to clear.
func (eventStrategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate implements registry.Strategy: nothing to keep.
func (eventStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate implements registry.Strategy with kube's ValidateEventCreate.
func (s eventStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return corev1.ValidateNewEvent(s.core(obj), s.version)
}

// ValidateUpdate implements registry.Strategy with kube's ValidateEventUpdate.
func (s eventStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return corev1.ValidateEventChange(s.core(obj), s.core(old), s.version)
}

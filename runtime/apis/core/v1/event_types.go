package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The event types, as Kubernetes' core/v1 EventTypeNormal and EventTypeWarning.
const (
	// EventTypeNormal is information only and will not cause any problems.
	EventTypeNormal = "Normal"
	// EventTypeWarning means something may be wrong.
	EventTypeWarning = "Warning"
)

// ObjectReference contains enough information to let you inspect or modify the referred
// object, as Kubernetes' core/v1 ObjectReference.
type ObjectReference struct {
	// Kind of the referent.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Namespace of the referent.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name of the referent.
	// +optional
	Name string `json:"name,omitempty"`
	// UID of the referent.
	// +optional
	UID types.UID `json:"uid,omitempty"`
	// API version of the referent.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Specific resourceVersion to which this reference is made, if any.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// If referring to a piece of an object instead of an entire object, this string
	// should contain a valid JSON/Go field access statement, such as
	// desiredState.manifest.containers[2].
	// +optional
	FieldPath string `json:"fieldPath,omitempty"`
}

// EventSource contains information for an event.
type EventSource struct {
	// Component from which the event is generated.
	// +optional
	Component string `json:"component,omitempty"`
	// Node name on which the event is generated.
	// +optional
	Host string `json:"host,omitempty"`
}

// EventSeries contain information on series of events, i.e. thing that was/is happening
// continuously for some time.
type EventSeries struct {
	// Number of occurrences in this series up to the last heartbeat time
	// +optional
	Count int32 `json:"count,omitempty"`
	// Time of the last occurrence observed
	// +optional
	LastObservedTime metav1.MicroTime `json:"lastObservedTime,omitempty"`
}

// Event is a report of an event somewhere in the cluster.  Events
// have a limited retention time and triggers and messages may evolve
// with time.  Event consumers should not rely on the timing of an event
// with a given Reason reflecting a consistent underlying trigger, or the
// continued existence of events with that Reason.  Events should be
// treated as informative, best-effort, supplemental data.
//
// The same stored objects are served as events.k8s.io/v1 Events (runtime/apis/events/v1);
// runtime/app adds kube's validation (ValidateEventCreate), table and field selectors.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=ev
type Event struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	metav1.ObjectMeta `json:"metadata"`

	// The object that this event is about.
	InvolvedObject ObjectReference `json:"involvedObject"`
	// This should be a short, machine understandable string that gives the reason
	// for the transition into the object's current status.
	// +optional
	Reason string `json:"reason,omitempty"`
	// A human-readable description of the status of this operation.
	// +optional
	Message string `json:"message,omitempty"`
	// The component reporting this event. Should be a short machine understandable string.
	// +optional
	Source EventSource `json:"source,omitempty"`
	// The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)
	// +optional
	FirstTimestamp metav1.Time `json:"firstTimestamp,omitempty"`
	// The time at which the most recent occurrence of this event was recorded.
	// +optional
	LastTimestamp metav1.Time `json:"lastTimestamp,omitempty"`
	// The number of times this event has occurred.
	// +optional
	Count int32 `json:"count,omitempty"`
	// Type of this event (Normal, Warning), new types could be added in the future
	// +optional
	Type string `json:"type,omitempty"`
	// Time when this Event was first observed.
	// +optional
	EventTime metav1.MicroTime `json:"eventTime,omitempty"`
	// Data about the Event series this event represents or nil if it's a singleton Event.
	// +optional
	Series *EventSeries `json:"series,omitempty"`
	// What action was taken/failed regarding to the Regarding object.
	// +optional
	Action string `json:"action,omitempty"`
	// Optional secondary object for more complex actions.
	// +optional
	Related *ObjectReference `json:"related,omitempty"`
	// Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.
	// +optional
	ReportingController string `json:"reportingComponent"`
	// ID of the controller instance, e.g. `kubelet-xyzf`.
	// +optional
	ReportingInstance string `json:"reportingInstance"`
}

// EventList is a list of events.
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// List of events
	Items []Event `json:"items"`
}

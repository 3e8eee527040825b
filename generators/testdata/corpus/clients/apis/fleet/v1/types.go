package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +kubebuilder:subresource:scale:specpath=.spec.crew,statuspath=.status.crew,selectorpath=.status.selector
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Ship is a vessel: every verb, a status, and scale methods on its scale subresource.
type Ship struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ShipSpec `json:"spec,omitempty"`
	// +optional
	Status ShipStatus `json:"status,omitempty"`
}

// ShipSpec is the desired state of a Ship.
type ShipSpec struct {
	// Crew is how many sail it.
	// +optional
	Crew *int32 `json:"crew,omitempty"`
	// Flags are the flags it flies, in order.
	// +optional
	Flags []string `json:"flags,omitempty"`
	// Holds are its cargo holds.
	// +optional
	// +listType=map
	// +listMapKey=name
	Holds []Hold `json:"holds,omitempty"`
	// Captain commands it; unset means none yet.
	// +optional
	Captain *Sailor `json:"captain,omitempty"`
	// Ports maps a port's name to the days spent there.
	// +optional
	Ports map[string]int32 `json:"ports,omitempty"`
}

// Hold is one cargo hold.
type Hold struct {
	// Name identifies the hold.
	Name string `json:"name"`
	// Tons is its capacity.
	// +optional
	Tons int64 `json:"tons,omitempty"`
}

// Sailor is a person aboard.
type Sailor struct {
	// Name is the sailor's name.
	Name string `json:"name"`
}

// ShipStatus is the observed state of a Ship.
type ShipStatus struct {
	// Crew is how many are aboard.
	// +optional
	Crew int32 `json:"crew,omitempty"`
	// Selector selects the ship's crew pods, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`
	// Conditions are the latest observations.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ShipList is a list of Ships.
type ShipList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ship `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:readonly
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Port is a cluster-wide harbour clients may only read.
type Port struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec PortSpec `json:"spec,omitempty"`
}

// PortSpec is the desired state of a Port.
type PortSpec struct {
	// Berths is how many ships can dock.
	// +optional
	Berths int32 `json:"berths,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PortList is a list of Ports.
type PortList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Port `json:"items"`
}

// +genclient
// +genclient:noStatus
// +genclient:skipVerbs=deleteCollection,apply
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Crew is a ship's company: a Status field but no status subresource, and neither
// DeleteCollection nor Apply.
type Crew struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec CrewSpec `json:"spec,omitempty"`
	// +optional
	Status CrewStatus `json:"status,omitempty"`
}

// CrewSpec is the desired state of a Crew.
type CrewSpec struct {
	// Sailors are the crew's members.
	// +optional
	Sailors []Sailor `json:"sailors,omitempty"`
}

// CrewStatus is what the crew reports.
type CrewStatus struct {
	// Mood is how the crew feels.
	// +optional
	Mood string `json:"mood,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CrewList is a list of Crews.
type CrewList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Crew `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=create,get,list,watch,delete
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Signal is a message between ships: created, read and deleted, never changed.
type Signal struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Text is the message.
	// +optional
	Text string `json:"text,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SignalList is a list of Signals.
type SignalList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Signal `json:"items"`
}

// +genclient
// +genclient:noVerbs
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Ledger is an account book with a client but no client methods.
type Ledger struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Entries are the ledger's lines.
	// +optional
	Entries []string `json:"entries,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// LedgerList is a list of Ledgers.
type LedgerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ledger `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Index is a chart index: client-gen's plural (indexes) where controller-gen's is indices,
// so the server must serve it at indexes.
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Charts are the indexed charts.
	// +optional
	Charts []string `json:"charts,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// IndexList is a list of Indexes.
type IndexList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Index `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Route is a voyage plan: its spec carries Kubernetes' declarative validation tags and
// controller-tools' one-of, items and nullable markers.
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RouteSpec `json:"spec"`
}

// RouteSpec is the plan of a Route: exactly one of harbor and anchorage ends it.
//
// +kubebuilder:validation:ExactlyOneOf={harbor,anchorage}
type RouteSpec struct {
	// Origin is where the route starts; it cannot change.
	// +k8s:immutable
	Origin string `json:"origin"`
	// Pilot guides the ship out; once set it cannot be cleared.
	// +k8s:update=NoUnset
	// +optional
	Pilot *string `json:"pilot,omitempty"`
	// Code is a short code of at most 8 bytes.
	// +k8s:maxBytes=8
	// +optional
	Code string `json:"code,omitempty"`
	// Destination is where the route goes; "nowhere" is not a place.
	// +k8s:neq="nowhere"
	Destination string `json:"destination"`
	// Waypoints are passed in order, each named once, in at most 4 characters.
	// +k8s:unique=set
	// +kubebuilder:validation:items:MaxLength=4
	// +optional
	Waypoints []string `json:"waypoints,omitempty"`
	// Stops maps a port (at most 6 characters) to the days spent there (at least 1); it is
	// applied as a whole.
	// +mapType=atomic
	// +k8s:eachVal=+k8s:minimum=1
	// +k8s:eachKey=+k8s:maxLength=6
	// +optional
	Stops map[string]int32 `json:"stops,omitempty"`
	// Notes may be null.
	// +nullable
	// +optional
	Notes *string `json:"notes,omitempty"`
	// Harbor ends the route at a quay.
	// +optional
	Harbor *string `json:"harbor,omitempty"`
	// Anchorage ends the route at anchor.
	// +optional
	Anchorage *string `json:"anchorage,omitempty"`
	// Mode says how the ship moves: Sail or Engine, with the plan of that name.
	// +k8s:unionDiscriminator
	// +optional
	Mode string `json:"mode,omitempty"`
	// Sail is the plan of a sailing route.
	// +k8s:unionMember
	// +optional
	Sail *Plan `json:"sail,omitempty"`
	// Engine is the plan of a motoring route.
	// +k8s:unionMember
	// +optional
	Engine *Plan `json:"engine,omitempty"`
	// Tug and Tow assist in port; at most one of them.
	// +k8s:zeroOrOneOfMember(union: "assist")
	// +optional
	Tug *Plan `json:"tug,omitempty"`
	// +k8s:zeroOrOneOfMember(union: "assist")
	// +optional
	Tow *Plan `json:"tow,omitempty"`
	// Weather is the forecast: one of the Weather constants.
	// +optional
	Weather Weather `json:"weather,omitempty"`
	// Legacy was removed; it must not be set.
	// +k8s:forbidden
	// +optional
	Legacy string `json:"legacy,omitempty"`
}

// Weather is a forecast.
// +k8s:enum
type Weather string

// The forecasts.
const (
	WeatherFair  Weather = "Fair"
	WeatherStorm Weather = "Storm"
)

// Plan is how a route is made, replaced as a whole by an apply.
//
// +structType=atomic
type Plan struct {
	// Knots is the planned speed.
	// +optional
	Knots int32 `json:"knots,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RouteList is a list of Routes.
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Route `json:"items"`
}

package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Hull is a boat's hull.
// +kubebuilder:validation:Enum=Mono;Cat;Tri
type Hull string

// LabelKey is the key of a boat's label.
// +kubebuilder:validation:MaxLength=63
type LabelKey string

// LabelValue is the value of a boat's label.
type LabelValue string

// BoatSpec is a boat's desired state.
type BoatSpec struct {
	// Hull is the boat's hull.
	Hull Hull `json:"hull"`
	// Alternates are the hulls the boat may be refitted with.
	// +optional
	// +listType=set
	Alternates []Hull `json:"alternates,omitempty"`
	// Crew is how many sail her.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	Crew int32 `json:"crew,omitempty"`
	// Labels label the boat.
	// +optional
	Labels map[LabelKey]LabelValue `json:"labels,omitempty"`
	// Berths are where the boat may moor, by port.
	// +optional
	Berths map[string]Berth `json:"berths,omitempty"`
	// Sails are the boat's sails.
	// +optional
	// +listType=map
	// +listMapKey=name
	Sails []Sail `json:"sails,omitempty"`
	// Engine is the boat's engine; unset for a sailing boat.
	// +optional
	Engine *Engine `json:"engine,omitempty"`
}

// Berth is a mooring.
type Berth struct {
	// Pier names the pier.
	Pier string `json:"pier"`
	// Slot is the place at the pier.
	// +optional
	Slot int32 `json:"slot,omitempty"`
}

// Sail is one sail.
type Sail struct {
	// Name names the sail.
	Name string `json:"name"`
	// Area is the sail's area in square metres.
	// +optional
	Area *resource.Quantity `json:"area,omitempty"`
}

// Engine is a boat's engine.
type Engine struct {
	// Power is in kilowatts.
	// +kubebuilder:validation:Minimum=1
	Power int32 `json:"power"`
	// Fuel is what it burns.
	// +optional
	Fuel *string `json:"fuel,omitempty"`
}

// BoatStatus is a boat's observed state.
type BoatStatus struct {
	// Afloat tells whether the boat is in the water.
	// +optional
	Afloat bool `json:"afloat,omitempty"`
	// Conditions are the latest observations, one per type.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Hull",type=string,JSONPath=`.spec.hull`

// Boat is a boat.
type Boat struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BoatSpec   `json:"spec,omitempty"`
	Status BoatStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BoatList contains a list of Boat.
type BoatList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Boat `json:"items"`
}

// DockSpec is a dock's desired state.
type DockSpec struct {
	// Capacity is how many boats the dock holds.
	// +optional
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=1
	Capacity int32 `json:"capacity,omitempty"`
	// Hulls are the hulls the dock takes.
	// +optional
	// +listType=set
	Hulls []Hull `json:"hulls,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:storageversion

// Dock is a dry dock; docks are cluster-wide.
type Dock struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DockSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// DockList contains a list of Dock.
type DockList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Dock `json:"items"`
}

package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Gear is a gear.
// +genclient
type Gear struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GearSpec `json:"spec,omitempty"`
}

// GearSpec is the desired state.
type GearSpec struct {
	Teeth int32 `json:"teeth,omitempty"`
}

// GearList is a list of gears.
type GearList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gear `json:"items"`
}

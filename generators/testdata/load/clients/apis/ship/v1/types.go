package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Boat has a typed client.
//
// +genclient
// +kubebuilder:object:root=true
type Boat struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Length is the boat's length in metres.
	// +optional
	Length int32 `json:"length,omitempty"`
}

// BoatList is a list of Boats.
//
// +kubebuilder:object:root=true
type BoatList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Boat `json:"items"`
}

package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RotaSpec defines the desired state of Rota: the same schema in every version, converted
// as a CRD's None strategy.
type RotaSpec struct {
	// Members take turns, in order.
	// +optional
	Members []string `json:"members,omitempty"`
}

// +kubebuilder:object:root=true

// Rota is the Schema for the rota API.
type Rota struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RotaSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// RotaList contains a list of Rota.
type RotaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Rota `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Rota{}, &RotaList{})
}

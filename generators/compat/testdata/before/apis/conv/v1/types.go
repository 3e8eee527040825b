package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Part is converted through its hub, v1.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Part struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PartSpec `json:"spec,omitempty"`
}

// PartSpec is the same in every version.
type PartSpec struct {
	Size int32 `json:"size,omitempty"`
}

// PartList is a list of parts.
// +kubebuilder:object:root=true
type PartList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Part `json:"items"`
}

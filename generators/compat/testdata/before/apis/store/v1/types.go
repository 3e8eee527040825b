package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing is stored in one version.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is the same in every version.
type ThingSpec struct {
	Size int32 `json:"size,omitempty"`
}

// ThingList is a list of things.
// +kubebuilder:object:root=true
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Relic is served in two versions.
// +kubebuilder:object:root=true
type Relic struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RelicSpec `json:"spec,omitempty"`
}

// RelicSpec is the same in every version.
type RelicSpec struct {
	Size int32 `json:"size,omitempty"`
}

// RelicList is a list of relics.
// +kubebuilder:object:root=true
type RelicList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Relic `json:"items"`
}

package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Index has no client in v1beta1: controller-gen's plural, indices.
//
// +kubebuilder:object:root=true
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// IndexList is a list of Indexes.
//
// +kubebuilder:object:root=true
type IndexList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Index `json:"items"`
}

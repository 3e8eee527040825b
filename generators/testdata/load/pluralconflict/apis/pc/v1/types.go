package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Index has a client in v1: client-gen's plural, indexes.
//
// +genclient
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// IndexList is a list of Indexes.
type IndexList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Index `json:"items"`
}

// Package v1 is the hub of a kubebuilder group converted by controller-runtime's Hub and
// Convertible.
// +groupName=convertible.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Thing is the hub.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Hub marks Thing as the conversion hub.
func (*Thing) Hub() {}

// ThingList is a list of things.
// +kubebuilder:object:root=true
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

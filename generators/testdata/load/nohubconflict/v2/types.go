// Package v2 is one of two versions without an internal package that disagree on Thing.
// +groupName=conflict.example.com
// +k8s:conversion-gen=example.com/elsewhere
package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing is marked the storage version, and has a Hub method, in both versions.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Hub marks Thing's hub, as kubebuilder's conversion.Hub.
func (*Thing) Hub() {}

// ThingList is a list of things.
// +kubebuilder:object:root=true
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

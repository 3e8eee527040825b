package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Gadget is the stored version of a Gadget.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=gadgetry,singular=gizmo,shortName=gd;gdt,categories=toys,scope=Cluster
// +kubebuilder:metadata:annotations="example.com/owner=toys"
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is the gadget's size.
	// +kubebuilder:validation:Minimum=1
	Size int32 `json:"size"`
}

// GadgetList is a list of Gadgets.
//
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

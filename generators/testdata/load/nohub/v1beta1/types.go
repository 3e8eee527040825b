package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/apigen-dev/apigen/generators/testdata/load/nohub/v1"
)

// Widget is v1's Widget.
// +kubebuilder:object:root=true
type Widget v1.Widget

// WidgetList is a list of widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// WidgetSpec is v1's.
type WidgetSpec = v1.WidgetSpec

// Grant is stored here.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Grant v1.Grant

// GrantList is a list of grants.
// +kubebuilder:object:root=true
type GrantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Grant `json:"items"`
}

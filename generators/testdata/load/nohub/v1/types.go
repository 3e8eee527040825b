package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Widget is stored in v1.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec is shared by both versions.
type WidgetSpec struct {
	// +optional
	Labels map[LabelKey]string `json:"labels,omitempty"`
}

// LabelKey is a label's key.
type LabelKey string

// WidgetList is a list of widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Grant is stored in v1beta1, as Gateway API's ReferenceGrant.
// +kubebuilder:object:root=true
type Grant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GrantList is a list of grants.
// +kubebuilder:object:root=true
type GrantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Grant `json:"items"`
}

// ValidateGrant is not called: Grant's hub is v1beta1.
func ValidateGrant(g *Grant) field.ErrorList { return nil }

package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Index is deprecated in v1beta1, with apiextensions' default warning.
//
// +genclient
// +kubebuilder:deprecatedversion
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

// Person is not served in v1beta1.
//
// +kubebuilder:object:root=true
// +kubebuilder:unservedversion
type Person struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// PersonList is a list of People.
//
// +kubebuilder:object:root=true
type PersonList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Person `json:"items"`
}

// Axis does not exist in v1beta1.
//
// +genclient
// +kubebuilder:skipversion
type Axis struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// AxisList is a list of Axes.
type AxisList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Axis `json:"items"`
}

// Widget is deprecated in v1beta1 with its own warning; its +genclient:readonly has no
// +genclient and does nothing, which is a warning.
//
// +kubebuilder:object:root=true
// +kubebuilder:deprecatedversion:warning="widgets of v1beta1 go away in 2027"
// +genclient:readonly
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// WidgetList is a list of Widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

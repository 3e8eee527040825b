package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Index is served at client-gen's plural: indexes.
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

// Person is served at controller-gen's plural: people.
//
// +kubebuilder:object:root=true
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

// Axis is +genclient with a resource path: the path wins.
//
// +genclient
// +kubebuilder:resource:path=axes
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

// Widget is deprecated in v1beta1 only.
//
// +kubebuilder:object:root=true
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

// Part is no kind: the version marker on it does nothing, and says so.
//
// +kubebuilder:skipversion
type Part struct {
	Name string `json:"name"`
}

package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Gadget is a kind with bad validation markers.
// +kubebuilder:object:root=true
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec"`
}

// GadgetSpec holds one bad marker per field.
type GadgetSpec struct {
	// +kubebuilder:validation:XValidation:rule="self.size() >",message="broken"
	Name string `json:"name"`
	// +kubebuilder:validation:XValidation:rule="self + 1",message="not a bool"
	Size int32 `json:"size"`
	// +kubebuilder:validation:Maximum=9
	// +default=12
	Replicas int32 `json:"replicas"`
	// +kubebuilder:validation:Enum=a;b
	// +default="c"
	Mode string `json:"mode"`
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:MaxLength=3
	// +default="ABCD"
	Code string `json:"code"`
	// +kubebuilder:validation:Pattern=`^[a-z+$`
	Broken string `json:"broken"`
	// +kubebuilder:validation:Enum=a;b
	Level int32 `json:"level"`
	// +listType=map
	// +listMapKey=id
	Items []Item `json:"items"`
	// +kubebuilder:validation:MultipleOf=0
	Step int32 `json:"step"`
	// +kubebuilder:validation:XValidation:rule="self.size() > 0",message="not empty"
	// +kubebuilder:validation:MinLength=2
	// +default=""
	Label string `json:"label"`
}

// Item is an item without an id field.
type Item struct {
	Name string `json:"name"`
}

// GadgetList is a list of Gadgets.
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

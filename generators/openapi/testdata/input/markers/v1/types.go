package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Level is how loud a Gadget is.
// +kubebuilder:validation:Enum=low;high
// +kubebuilder:validation:XValidation:rule="self != 'off'",message="use low"
type Level string

// Gadget is a kind whose spec carries every constraint.
// +kubebuilder:object:root=true
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec"`
}

// GadgetSpec is the desired state of a Gadget.
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
// +kubebuilder:validation:MinProperties=1
type GadgetSpec struct {
	// MinReplicas is the least number of replicas.
	// +optional
	// +k8s:minimum=0
	// +k8s:validation:maximum=100
	// +kubebuilder:validation:ExclusiveMaximum=true
	MinReplicas int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the most replicas, an even number.
	// +optional
	// +default=10
	// +k8s:ifEnabled(Autoscale)=+k8s:maximum=100
	// +kubebuilder:validation:MultipleOf=2
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
	// Ratio is a fraction above 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Maximum=1
	Ratio float64 `json:"ratio,omitempty"`
	// Name is a DNS label.
	// +required
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MaxLength=63
	// +k8s:validation:pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Mode is Fast or Safe.
	// +optional
	// +kubebuilder:validation:Enum=Fast;Safe
	// +kubebuilder:default=Safe
	Mode string `json:"mode,omitempty"`
	// ID identifies the gadget.
	// +optional
	// +kubebuilder:validation:Format=uuid
	ID string `json:"id,omitempty"`
	// Level is how loud the gadget is; never "off".
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="level is immutable"
	Level Level `json:"level,omitempty"`
	// Tags label the gadget.
	// +optional
	// +listType=set
	// +k8s:minItems=1
	// +kubebuilder:validation:MaxItems=8
	Tags []string `json:"tags,omitempty"`
	// Ports are distinct port numbers.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:UniqueItems=true
	Ports []int32 `json:"ports,omitempty"`
	// Labels are at most 16 pairs.
	// +optional
	// +k8s:validation:maxProperties=16
	Labels map[string]string `json:"labels,omitempty"`
	// Slots are keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	Slots []Slot `json:"slots,omitempty"`
	// Port is a number or a name.
	// +optional
	Port intstr.IntOrString `json:"port,omitempty"`
	// Size is a quantity.
	// +optional
	// +kubebuilder:default="1Gi"
	Size resource.Quantity `json:"size,omitempty"`
	// Since is a time.
	// +optional
	Since metav1.Time `json:"since,omitempty"`
	// Every is a duration.
	// +optional
	Every metav1.Duration `json:"every,omitempty"`
	// Selector is replaced as a whole by every write.
	// +optional
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty"`
	// Window merges key by key, unlike its type.
	// +optional
	// +structType=granular
	Window *Window `json:"window,omitempty"`
}

// Window is a time window, replaced as a whole.
// +structType=atomic
type Window struct {
	// Start is the first hour.
	Start int32 `json:"start"`
	// End is the last hour.
	End int32 `json:"end"`
}

// Slot is one named slot.
type Slot struct {
	// Name identifies the slot.
	Name string `json:"name"`
	// Width is the slot's width.
	// +optional
	Width *int32 `json:"width,omitempty"`
}

// GadgetList is a list of Gadgets.
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

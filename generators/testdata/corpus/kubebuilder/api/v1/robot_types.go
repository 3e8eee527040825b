package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Model is a robot's model line.
// +kubebuilder:validation:Enum=Scout;Loader;Welder
type Model string

// The robot models.
const (
	ModelScout  Model = "Scout"
	ModelLoader Model = "Loader"
	ModelWelder Model = "Welder"
)

// RobotSpec defines the desired state of Robot.
type RobotSpec struct {
	// Model is the robot's model line.
	// +required
	Model Model `json:"model"`
	// Firmware is the firmware version to run, e.g. "2.4.1".
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+\.[0-9]+\.[0-9]+$`
	// +kubebuilder:default="1.0.0"
	Firmware string `json:"firmware,omitempty"`
	// Arms is how many arms to fit, 1 to 8.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=8
	Arms *int32 `json:"arms,omitempty"`
	// Payload is the heaviest load the robot lifts.
	// +optional
	// +kubebuilder:default="5Gi"
	Payload resource.Quantity `json:"payload,omitempty"`
	// Tools are the tools fitted, by slot.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=slot
	Tools []Tool `json:"tools,omitempty"`
	// Settings are free-form firmware settings.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
	// Maintenance schedules servicing; unset means none.
	// +optional
	Maintenance *MaintenanceWindow `json:"maintenance,omitempty"`
}

// Tool is one tool fitted to a Robot.
type Tool struct {
	// Slot is the arm slot the tool sits in.
	// +kubebuilder:validation:Minimum=0
	Slot int32 `json:"slot"`
	// Name names the tool.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
}

// MaintenanceWindow is when a Robot is serviced.
type MaintenanceWindow struct {
	// Start is when servicing starts.
	Start metav1.Time `json:"start"`
	// Hours is how long servicing takes.
	// +optional
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=1
	Hours int32 `json:"hours,omitempty"`
}

// RobotStatus defines the observed state of Robot.
type RobotStatus struct {
	// Ready tells whether the robot is working.
	// +optional
	Ready bool `json:"ready,omitempty"`
	// LastSeen is when the robot last reported.
	// +optional
	LastSeen *metav1.Time `json:"lastSeen,omitempty"`
	// Conditions are the latest observations, one per type.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=rb,categories=all
// +kubebuilder:printcolumn:name="Model",type=string,JSONPath=`.spec.model`
// +kubebuilder:printcolumn:name="Arms",type=integer,JSONPath=`.spec.arms`
// +kubebuilder:printcolumn:name="Ready",type=boolean,JSONPath=`.status.ready`
// +kubebuilder:printcolumn:name="Firmware",type=string,JSONPath=`.spec.firmware`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Robot is the Schema for the robots API.
type Robot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RobotSpec   `json:"spec,omitempty"`
	Status RobotStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RobotList contains a list of Robot.
type RobotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Robot `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Robot{}, &RobotList{})
}

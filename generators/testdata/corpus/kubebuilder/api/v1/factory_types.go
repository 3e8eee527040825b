package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FactorySpec defines the desired state of Factory.
type FactorySpec struct {
	// Location is where the factory stands; it cannot change.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable"
	Location string `json:"location"`
	// Lines are the assembly lines, by name.
	// +optional
	Lines map[string]AssemblyLine `json:"lines,omitempty"`
	// PowerBudget caps the factory's power draw.
	// +optional
	PowerBudget *resource.Quantity `json:"powerBudget,omitempty"`
	// OpenedAt is when the factory opened.
	// +optional
	OpenedAt metav1.Time `json:"openedAt,omitempty"`
	// Shifts are the working shifts per day.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3
	Shifts int32 `json:"shifts,omitempty"`
}

// AssemblyLine is one assembly line of a Factory.
type AssemblyLine struct {
	// Models are the robot models the line builds.
	// +optional
	// +listType=set
	Models []Model `json:"models,omitempty"`
	// RatePerHour is how many robots the line builds an hour.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RatePerHour int32 `json:"ratePerHour,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=fac
// +kubebuilder:printcolumn:name="Location",type=string,JSONPath=`.spec.location`
// +kubebuilder:printcolumn:name="Shifts",type=integer,JSONPath=`.spec.shifts`

// Factory is the Schema for the factories API; factories are cluster-wide.
type Factory struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FactorySpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// FactoryList contains a list of Factory.
type FactoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Factory `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Factory{}, &FactoryList{})
}

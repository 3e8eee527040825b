package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ChoreSpec defines the desired state of Chore.
type ChoreSpec struct {
	// Hour is the hour of the day the chore runs, 0 to 23.
	// +required
	Hour int32 `json:"hour"`
	// Minute is the minute of the hour the chore runs, 0 to 59.
	// +optional
	Minute int32 `json:"minute,omitempty"`
	// Task says what to do.
	// +required
	// +kubebuilder:validation:MinLength=1
	Task string `json:"task"`
	// Suspend stops the chore from running.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`
}

// ChoreStatus defines the observed state of Chore.
type ChoreStatus struct {
	// LastRun is when the chore last ran.
	// +optional
	LastRun *metav1.Time `json:"lastRun,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Hour",type=integer,JSONPath=`.spec.hour`

// Chore is the Schema for the chores API.
type Chore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ChoreSpec   `json:"spec,omitempty"`
	Status ChoreStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ChoreList contains a list of Chore.
type ChoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Chore `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Chore{}, &ChoreList{})
}

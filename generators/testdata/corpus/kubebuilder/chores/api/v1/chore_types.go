package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ChoreSpec defines the desired state of Chore.
type ChoreSpec struct {
	// Schedule is when the chore runs each day, "HH:MM" in 24-hour time.
	// +required
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3]):[0-5][0-9]$`
	Schedule string `json:"schedule"`
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
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`

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

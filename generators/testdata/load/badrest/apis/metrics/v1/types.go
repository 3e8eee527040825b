package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Usage is computed by the user's REST, whose constructor is missing.
//
// +genclient
// +kubebuilder:object:root=true
// +apigen:storage=rest
type Usage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Value             int64 `json:"value,omitempty"`
}

// UsageList is a list of Usages.
//
// +kubebuilder:object:root=true
type UsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Usage `json:"items"`
}

// Meter has a status subresource, which the user's REST cannot serve.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +apigen:storage=rest
type Meter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            MeterStatus `json:"status,omitempty"`
}

// MeterStatus is a Meter's reading.
type MeterStatus struct {
	Value int64 `json:"value,omitempty"`
}

// MeterList is a list of Meters.
//
// +kubebuilder:object:root=true
type MeterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Meter `json:"items"`
}

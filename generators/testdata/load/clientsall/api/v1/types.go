package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Index has a Status field and no status subresource, and a plural that controller-gen and
// client-gen spell differently (indices, indexes).
// +kubebuilder:object:root=true
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            IndexStatus `json:"status,omitempty"`
}

// IndexStatus is Index's status.
type IndexStatus struct {
	Entries int32 `json:"entries,omitempty"`
}

// IndexList is a list of Index.
// +kubebuilder:object:root=true
type IndexList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Index `json:"items"`
}

// Gear serves /status and is cluster-scoped.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
// +apigen:clients=all
type Gear struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            IndexStatus `json:"status,omitempty"`
}

// GearList is a list of Gear.
// +kubebuilder:object:root=true
type GearList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gear `json:"items"`
}

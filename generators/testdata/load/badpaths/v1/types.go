package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Pool has selectable fields and a scale subresource whose paths are wrong.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:scale:specpath=.spec.size,statuspath=.status.missing,selectorpath=.spec.count
// +kubebuilder:selectablefield:JSONPath=`.spec.size`
// +kubebuilder:selectablefield:JSONPath=`.spec.labels`
// +kubebuilder:selectablefield:JSONPath=`.spec.tier.name`
// +kubebuilder:selectablefield:JSONPath=`.spec.nope`
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolSpec   `json:"spec"`
	Status PoolStatus `json:"status,omitempty"`
}

// Tier is a named string.
type Tier string

// PoolSpec is the desired state of a Pool.
type PoolSpec struct {
	Size   *int32            `json:"size,omitempty"`
	Count  Count             `json:"count,omitempty"`
	Tier   Tier              `json:"tier,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

// Count is a named integer.
type Count int64

// PoolStatus is the observed state of a Pool.
type PoolStatus struct {
	Ready int32 `json:"ready"`
}

// PoolList is a list of Pools.
//
// +kubebuilder:object:root=true
type PoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Pool `json:"items"`
}

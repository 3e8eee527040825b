// +kubebuilder:object:generate=true

package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Size is an order size.
// +kubebuilder:validation:Enum=small;large
type Size string

// +genclient
// +kubebuilder:resource:shortName=ord;o,categories={all,shop}
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
// +kubebuilder:printcolumn:name="Size",type=string,JSONPath=`.spec.size`,priority=1

// Order is a customer order.
//
// It has a spec and a status.
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	Spec OrderSpec `json:"spec"`
	// +optional
	Status OrderStatus `json:"status,omitempty"`
}

// OrderSpec is what the customer wants.
type OrderSpec struct {
	// Size of the order.
	// +kubebuilder:default=small
	Size Size `json:"size,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +k8s:maximum=10
	Replicas *int32 `json:"replicas,omitempty"`
	// +default="1Gi"
	Storage resource.Quantity `json:"storage"`
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Labels     map[string]string
	Skipped    string `json:"-"`
	internal   string
}

// OrderStatus is what the shop did.
type OrderStatus struct {
	Replicas int32 `json:"replicas"`
}

// OrderList is a list of Orders.
// +kubebuilder:object:root=true
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Order `json:"items"`
}

// Policy is a cluster-wide shop policy.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// PolicyList is a list of Policies.
// +kubebuilder:object:root=true
type PolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Policy `json:"items"`
}

// Orphan is a root type without a list: not a kind, and a warning.
// +kubebuilder:object:root=true
type Orphan struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

package shop

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Order is an order.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Order struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec OrderSpec
}

// OrderSpec is the hub spec.
type OrderSpec struct {
	Items []string
}

// OrderList is a list of orders.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type OrderList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Order
}

// Validator is a helper interface, not an API type: the loader leaves it out.
type Validator interface {
	Validate() error
}

// ValidateFunc is a helper function type, not an API type.
type ValidateFunc func(*Order) error

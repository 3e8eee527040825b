package v1beta1

import (
	shop "github.com/apigen-dev/apigen/generators/testdata/load/basic/apis/shop"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
)

// Order is the beta order.
// +genclient
// +genclient:noStatus
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              OrderSpec   `json:"spec"`
	Status            OrderStatus `json:"status"`
}

// OrderSpec is the beta spec.
type OrderSpec struct {
	Count int `json:"count"`
}

// OrderStatus is the beta status.
type OrderStatus struct{}

// OrderList is a list of Orders.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Order `json:"items"`
}

// Convert_v1beta1_OrderSpec_To_shop_OrderSpec is hand-written.
func Convert_v1beta1_OrderSpec_To_shop_OrderSpec(in *OrderSpec, out *shop.OrderSpec, s conversion.Scope) error {
	return autoConvert_v1beta1_OrderSpec_To_shop_OrderSpec(in, out, s)
}

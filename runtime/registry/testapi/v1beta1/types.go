// Package v1beta1 is version v1beta1 of the test.apigen.dev test API: Widget spec.color is
// spelled spec.colour here.
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is test.apigen.dev/v1beta1.
var SchemeGroupVersion = schema.GroupVersion{Group: "test.apigen.dev", Version: "v1beta1"}

// Widget is a namespaced kind with a status subresource.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what a client asks of a Widget.
type WidgetSpec struct {
	// Size defaults to 1.
	Size   int32        `json:"size,omitempty"`
	Colour string       `json:"colour,omitempty"`
	Ports  []WidgetPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// WidgetPort is one named port.
type WidgetPort struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

// WidgetStatus is what the server reports about a Widget.
type WidgetStatus struct {
	Phase string `json:"phase,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Gadget is a cluster-scoped kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec `json:"spec,omitempty"`
}

// GadgetSpec is what a client asks of a Gadget.
type GadgetSpec struct {
	Owner string `json:"owner,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// DeepCopyObject returns a deep copy.
func (in *Widget) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Ports = append([]WidgetPort(nil), in.Spec.Ports...)
	return &out
}

// DeepCopyObject returns a deep copy.
func (in *WidgetList) DeepCopyObject() runtime.Object {
	out := &WidgetList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*Widget))
	}
	return out
}

// DeepCopyObject returns a deep copy.
func (in *Gadget) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a deep copy.
func (in *GadgetList) DeepCopyObject() runtime.Object {
	out := &GadgetList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*Gadget))
	}
	return out
}

package testapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the group's name.
const GroupName = "test.apigen.dev"

// SchemeGroupVersion is the internal (hub) version of the group.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}

// Widget is a namespaced kind with a status subresource.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what a client asks of a Widget.
type WidgetSpec struct {
	// Size is between 0 and 100.
	Size  int32        `json:"size,omitempty"`
	Color string       `json:"color,omitempty"`
	Ports []WidgetPort `json:"ports,omitempty"`
}

// WidgetPort is one named port; a list of them merges by name in strategic merge patches.
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

// Gadget is a cluster-scoped kind without subresources.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec `json:"spec,omitempty"`
}

// GadgetSpec is what a client asks of a Gadget.
type GadgetSpec struct {
	// Owner is required.
	Owner string `json:"owner,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// AddToScheme registers the internal types.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Widget{}, &WidgetList{}, &Gadget{}, &GadgetList{})
	return nil
}

// DeepCopyInto copies in into out.
func (in *WidgetSpec) DeepCopyInto(out *WidgetSpec) {
	*out = *in
	if in.Ports != nil {
		out.Ports = append([]WidgetPort(nil), in.Ports...)
	}
}

// DeepCopyInto copies in into out.
func (in *Widget) DeepCopyInto(out *Widget) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopyObject returns a deep copy.
func (in *Widget) DeepCopyObject() runtime.Object {
	out := new(Widget)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy.
func (in *WidgetList) DeepCopyObject() runtime.Object {
	out := &WidgetList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// DeepCopyInto copies in into out.
func (in *Gadget) DeepCopyInto(out *Gadget) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject returns a deep copy.
func (in *Gadget) DeepCopyObject() runtime.Object {
	out := new(Gadget)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy.
func (in *GadgetList) DeepCopyObject() runtime.Object {
	out := &GadgetList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Gadget, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

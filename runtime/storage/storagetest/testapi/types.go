package testapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Widget is the conformance suite's test kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

// WidgetSpec is a Widget's desired state.
type WidgetSpec struct {
	// Color is selectable as the field "spec.color".
	Color string `json:"color,omitempty"`
	// Size is a plain number, in widget units.
	Size int32 `json:"size,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

// DeepCopyInto copies w into out.
func (w *Widget) DeepCopyInto(out *Widget) {
	*out = *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopy returns a deep copy of w, or nil for nil.
func (w *Widget) DeepCopy() *Widget {
	if w == nil {
		return nil
	}
	out := new(Widget)
	w.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (w *Widget) DeepCopyObject() runtime.Object {
	if c := w.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out.
func (l *WidgetList) DeepCopyInto(out *WidgetList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Widget, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a deep copy of l, or nil for nil.
func (l *WidgetList) DeepCopy() *WidgetList {
	if l == nil {
		return nil
	}
	out := new(WidgetList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}

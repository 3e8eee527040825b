package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// AddToScheme registers the v1beta1 types, their conversions to and from the internal types and
// their defaults.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Widget{}, &WidgetList{}, &Gadget{}, &GadgetList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	scheme.AddTypeDefaultingFunc(&Widget{}, func(obj interface{}) { SetDefaults_Widget(obj.(*Widget)) })
	scheme.AddTypeDefaultingFunc(&WidgetList{}, func(obj interface{}) {
		for i := range obj.(*WidgetList).Items {
			SetDefaults_Widget(&obj.(*WidgetList).Items[i])
		}
	})
	return addConversionFuncs(scheme)
}

// SetDefaults_Widget defaults spec.size to 1.
func SetDefaults_Widget(obj *Widget) { //nolint:revive // the defaulter-gen naming convention
	if obj.Spec.Size == 0 {
		obj.Spec.Size = 1
	}
}

func addConversionFuncs(s *runtime.Scheme) error {
	funcs := []struct {
		a, b interface{}
		fn   conversion.ConversionFunc
	}{
		{(*Widget)(nil), (*testapi.Widget)(nil), func(a, b interface{}, _ conversion.Scope) error {
			widgetToInternal(a.(*Widget), b.(*testapi.Widget))
			return nil
		}},
		{(*testapi.Widget)(nil), (*Widget)(nil), func(a, b interface{}, _ conversion.Scope) error {
			widgetFromInternal(a.(*testapi.Widget), b.(*Widget))
			return nil
		}},
		{(*WidgetList)(nil), (*testapi.WidgetList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*WidgetList), b.(*testapi.WidgetList)
			out.ListMeta = in.ListMeta
			out.Items = make([]testapi.Widget, len(in.Items))
			for i := range in.Items {
				widgetToInternal(&in.Items[i], &out.Items[i])
			}
			return nil
		}},
		{(*testapi.WidgetList)(nil), (*WidgetList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*testapi.WidgetList), b.(*WidgetList)
			out.ListMeta = in.ListMeta
			out.Items = make([]Widget, len(in.Items))
			for i := range in.Items {
				widgetFromInternal(&in.Items[i], &out.Items[i])
			}
			return nil
		}},
		{(*Gadget)(nil), (*testapi.Gadget)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*Gadget), b.(*testapi.Gadget)
			out.ObjectMeta, out.Spec.Owner = in.ObjectMeta, in.Spec.Owner
			return nil
		}},
		{(*testapi.Gadget)(nil), (*Gadget)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*testapi.Gadget), b.(*Gadget)
			out.ObjectMeta, out.Spec.Owner = in.ObjectMeta, in.Spec.Owner
			return nil
		}},
		{(*GadgetList)(nil), (*testapi.GadgetList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*GadgetList), b.(*testapi.GadgetList)
			out.ListMeta = in.ListMeta
			out.Items = make([]testapi.Gadget, len(in.Items))
			for i := range in.Items {
				out.Items[i].ObjectMeta, out.Items[i].Spec.Owner = in.Items[i].ObjectMeta, in.Items[i].Spec.Owner
			}
			return nil
		}},
		{(*testapi.GadgetList)(nil), (*GadgetList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*testapi.GadgetList), b.(*GadgetList)
			out.ListMeta = in.ListMeta
			out.Items = make([]Gadget, len(in.Items))
			for i := range in.Items {
				out.Items[i].ObjectMeta, out.Items[i].Spec.Owner = in.Items[i].ObjectMeta, in.Items[i].Spec.Owner
			}
			return nil
		}},
	}
	for _, f := range funcs {
		if err := s.AddConversionFunc(f.a, f.b, f.fn); err != nil {
			return err
		}
	}
	return nil
}

func widgetToInternal(in *Widget, out *testapi.Widget) {
	out.ObjectMeta = in.ObjectMeta
	out.Spec = testapi.WidgetSpec{Size: in.Spec.Size, Color: in.Spec.Colour}
	for _, p := range in.Spec.Ports {
		out.Spec.Ports = append(out.Spec.Ports, testapi.WidgetPort{Name: p.Name, Port: p.Port})
	}
	out.Status.Phase = in.Status.Phase
}

func widgetFromInternal(in *testapi.Widget, out *Widget) {
	out.ObjectMeta = in.ObjectMeta
	out.Spec = WidgetSpec{Size: in.Spec.Size, Colour: in.Spec.Color}
	for _, p := range in.Spec.Ports {
		out.Spec.Ports = append(out.Spec.Ports, WidgetPort{Name: p.Name, Port: p.Port})
	}
	out.Status.Phase = in.Status.Phase
}

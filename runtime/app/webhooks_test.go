package app

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestDynamicAdmissionPluginsByDefault checks that MutatingAdmissionWebhook,
// ValidatingAdmissionPolicy and ValidatingAdmissionWebhook are on by default, in kube's
// order after the in-process NamespaceLifecycle, and that the flag turns one off.
func TestDynamicAdmissionPluginsByDefault(t *testing.T) {
	chain, err := buildAdmission(&AdmissionOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := chain.Names()
	want := []string{"NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook"}
	var got []string
	for _, n := range names {
		if slices.Contains(want, n) {
			got = append(got, n)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("default plugins %v, want %v in that order", names, want)
	}
	chain, err = buildAdmission(&AdmissionOptions{DisableAdmissionPlugins: []string{"ValidatingAdmissionWebhook"}}, nil)
	if err != nil || slices.Contains(chain.Names(), "ValidatingAdmissionWebhook") {
		t.Errorf("disabled: %v %v", chain.Names(), err)
	}
}

// TestAdmissionRegistrationRuntimeConfig checks --runtime-config
// admissionregistration.k8s.io/v1=false: the API is not served (the plugins then find no
// configuration).
func TestAdmissionRegistrationRuntimeConfig(t *testing.T) {
	off := NewOptions()
	off.RuntimeConfig = map[string]string{admissionRegistrationV1: "false"}
	if infos, err := serveAdmissionRegistration(off, runtime.NewScheme(), nil); err != nil || len(infos) != 0 {
		t.Errorf("turned off: %d groups, %v", len(infos), err)
	}
}

package tracing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadConfiguration checks kube's TracingConfiguration in each version it is served in,
// and the errors of a bad one, as kube-apiserver reads --tracing-config-file.
func TestReadConfiguration(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"v1", "v1beta1", "v1alpha1"} {
		cfg, err := ParseConfiguration([]byte("apiVersion: apiserver.config.k8s.io/"+version+
			"\nkind: TracingConfiguration\nendpoint: collector.example:4317\nsamplingRatePerMillion: 250\n"), "tracing.yaml")
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if *cfg.Endpoint != "collector.example:4317" || *cfg.SamplingRatePerMillion != 250 {
			t.Errorf("%s: endpoint %q rate %d", version, *cfg.Endpoint, *cfg.SamplingRatePerMillion)
		}
	}
	for _, tc := range []struct{ data, want string }{
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n", "sampling rate per million must be less than or equal to one million"},
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1\n", "sampling rate must be positive"},
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpont: localhost:4317\n", `unknown field "endpont"`},
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: EgressSelectorConfiguration\n", "unable to decode tracing configuration"},
	} {
		if _, err := ParseConfiguration([]byte(tc.data), "tracing.yaml"); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"tracing.yaml"`) {
			t.Errorf("%q: error %v, want one naming the file and %q", tc.data, err, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "tracing.yaml")
	if _, err := ReadConfiguration(path); err == nil || !strings.Contains(err.Error(), "unable to read tracing configuration") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := ReadConfiguration(path); err != nil || cfg.Endpoint != nil || cfg.SamplingRatePerMillion != nil {
		t.Errorf("empty configuration: %+v, %v", cfg, err)
	}
}

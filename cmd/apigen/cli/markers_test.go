package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestMarkersCommand runs `apigen markers` with a filter: each marker of the filter comes with
// where it goes, its owner generator and its help, an unhonoured one with its warning.
func TestMarkersCommand(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"markers", "genclient:no"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("apigen markers genclient:no = %d, stderr:\n%s", code, stderr.String())
	}
	want := "+genclient:noStatus  [type; clientset]\n    The client has no UpdateStatus or ApplyStatus.\n" +
		"+genclient:noVerbs  [type; clientset]\n    The client has no methods.\n" +
		"+genclient:nonNamespaced  [type; clientset]\n    The kind is cluster-scoped.\n"
	if got := stdout.String(); got != want {
		t.Errorf("apigen markers genclient:no printed:\n%s\nwant:\n%s", got, want)
	}

	stdout.Reset()
	if code := Run([]string{"markers"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("apigen markers = %d, stderr:\n%s", code, stderr.String())
	}
	all := stdout.String()
	for _, want := range []string{
		"+kubebuilder:validation:Minimum=<number>  [type, field; validation]\n",
		"+k8s:conversion-fn=copy-only|drop  [func; conversion]\n",
		"+kubebuilder:rbac...  [package, type, field, func; markers]\n",
		"Warning: does nothing in apigen: apigen publishes no x-kubernetes-patch-strategy",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("apigen markers lacks %q", want)
		}
	}
	if code := Run([]string{"markers", "a", "b"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("apigen markers a b = %d, want the usage error %d", code, exitUsage)
	}
}

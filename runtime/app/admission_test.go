package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/admission"
)

// testLabels is a mutating plugin: every created object gets the label admitted-by=test.
type testLabels struct{}

func (testLabels) Handles(op admission.Operation) bool { return op == admission.Create }
func (testLabels) Admit(_ context.Context, a *admission.Attributes) error {
	m, err := metaOf(a.Object)
	if err != nil {
		return err
	}
	labels := m.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["admitted-by"] = "test"
	m.SetLabels(labels)
	return nil
}

// testReserved is a validating plugin: names starting with "reserved-" may not be created,
// and objects labelled protected=true may not be deleted.
type testReserved struct{}

func (testReserved) Handles(op admission.Operation) bool {
	return op == admission.Create || op == admission.Delete
}
func (testReserved) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation == admission.Create && strings.HasPrefix(a.Name, "reserved-") {
		return errors.New("names starting with reserved- are kept for the platform")
	}
	if a.Operation == admission.Delete {
		if m, err := metaOf(a.OldObject); err == nil && m.GetLabels()["protected"] == "true" {
			return errors.New("the object is protected")
		}
	}
	return nil
}

func metaOf(obj any) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, errors.New("not an object with metadata")
	}
	return m, nil
}

var registerTestPlugins sync.Once

// TestRunAdmission enables two plugins registered as a generated server's main would and
// checks, with kubectl, that the mutating one changed created objects and the validating one
// refused what it must with kube-apiserver's 403 wording, dry runs included.
func TestRunAdmission(t *testing.T) {
	registerTestPlugins.Do(func() {
		for name, p := range map[string]admission.Interface{"TestLabels": testLabels{}, "TestReserved": testReserved{}} {
			if err := AdmissionPlugins.Register(name, false, func() (admission.Interface, error) { return p, nil }); err != nil {
				t.Fatal(err)
			}
		}
	})
	_, kubeconfig := startArgs(t, []string{"--plain-http", "--enable-admission-plugins=TestReserved,TestLabels"}, testGroup)
	dir := t.TempDir()
	manifest := func(name string, labels string) string {
		p := filepath.Join(dir, name+".yaml")
		body := "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n  namespace: default\n" + labels
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kubectlErr := func(args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	runKubectl(t, kubeconfig, "create", "-f", manifest("plain", ""))
	if got := runKubectl(t, kubeconfig, "get", "widgets.test.apigen.dev", "plain", "-n", "default", "-o", "jsonpath={.metadata.labels.admitted-by}"); got != "test" {
		t.Errorf("the mutating plugin did not label the object: %q", got)
	}
	for _, dryRun := range []string{"--dry-run=none", "--dry-run=server"} {
		out, err := kubectlErr("create", dryRun, "-f", manifest("reserved-x", ""))
		if err == nil || !strings.Contains(out, `widgets.test.apigen.dev "reserved-x" is forbidden: names starting with reserved- are kept for the platform`) {
			t.Errorf("create reserved-x %s: %v\n%s", dryRun, err, out)
		}
	}
	runKubectl(t, kubeconfig, "create", "-f", manifest("kept", "  labels:\n    protected: \"true\"\n"))
	if out, err := kubectlErr("delete", "widgets.test.apigen.dev", "kept", "-n", "default"); err == nil || !strings.Contains(out, "the object is protected") {
		t.Errorf("delete of a protected widget: %v\n%s", err, out)
	}
	runKubectl(t, kubeconfig, "delete", "widgets.test.apigen.dev", "plain", "-n", "default")
}

package customresource

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kubectl runs /usr/bin/kubectl against the fixture's server with a kubeconfig in a temp
// dir, returning its combined output.
func (f *fixture) kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + f.srv.URL +
		"\ncontexts:\n- name: c\n  context:\n    cluster: c\n    namespace: default\ncurrent-context: c\nusers: []\n"
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/kubectl", append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestKubectl drives custom resources with kubectl: apply, get (table with printer columns,
// by short name, by category "all"), scale, patch, delete.
func TestKubectl(t *testing.T) {
	if _, err := os.Stat("/usr/bin/kubectl"); err != nil {
		t.Skip("no /usr/bin/kubectl")
	}
	f := newFixture(t)
	manifest := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\n" +
		"spec:\n  cronSpec: \"* * * * */5\"\n  image: my-awesome-cron-image\n  replicas: 1\n"
	run := func(stdin string, args ...string) string {
		t.Helper()
		out, err := f.kubectl(t, stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	if out := run(manifest, "apply", "-f", "-"); !strings.Contains(out, "crontab.stable.example.com/my-new-cron-object created") {
		t.Errorf("apply: %s", out)
	}
	out := run("", "get", "crontabs")
	if !strings.Contains(out, "SPEC") || !strings.Contains(out, "REPLICAS") || !strings.Contains(out, "* * * * */5") {
		t.Errorf("get crontabs:\n%s", out)
	}
	if out := run("", "get", "ct", "-o", "name"); strings.TrimSpace(out) != "crontab.stable.example.com/my-new-cron-object" {
		t.Errorf("get ct: %s", out)
	}
	if out := run("", "get", "all"); !strings.Contains(out, "my-new-cron-object   * * * * */5") {
		t.Errorf("get all:\n%s", out)
	}
	if out := run("", "scale", "crontab/my-new-cron-object", "--replicas=3"); !strings.Contains(out, "scaled") {
		t.Errorf("scale: %s", out)
	}
	if out := run("", "get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.replicas}"); out != "3" {
		t.Errorf("replicas after scale = %q", out)
	}
	run("", "patch", "crontab", "my-new-cron-object", "--type=merge", "-p", `{"spec":{"image":"other"}}`)
	if out := run("", "get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.image} {.metadata.generation}"); out != "other 3" {
		t.Errorf("after patch = %q", out)
	}
	if out, err := f.kubectl(t, "", "patch", "crontab", "my-new-cron-object", "--type=merge", "-p", `{"spec":{"replicas":50}}`); err == nil ||
		!strings.Contains(out, `The CronTab "my-new-cron-object" is invalid: spec.replicas: Invalid value: 50`) {
		t.Errorf("invalid patch: %v %s", err, out)
	}
	// apply again: kubectl computes a merge patch from its last-applied annotation.
	if out := run(strings.Replace(manifest, "my-awesome-cron-image", "newer", 1), "apply", "-f", "-"); !strings.Contains(out, "configured") {
		t.Errorf("apply again: %s", out)
	}
	if out := run("", "describe", "crontab", "my-new-cron-object"); !strings.Contains(out, "Image:") || !strings.Contains(out, "newer") {
		t.Errorf("describe:\n%s", out)
	}
	if out := run("", "delete", "crontab", "my-new-cron-object"); !strings.Contains(out, "deleted") {
		t.Errorf("delete: %s", out)
	}
}

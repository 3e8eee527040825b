package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// crontabs is the resource of the CronTab CRD.
var crontabs = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}

// crdsDir holds the CronTab CustomResourceDefinition of the Kubernetes documentation and a
// CronTab.
var crdsDir = filepath.Join("..", "config", "crds")

// TestCustomResourceDefinitionKubectl drives a CRD written for Kubernetes through kubectl:
// apply it, wait for Established, see its resource in discovery, then
// apply / get / get -w / delete CronTabs, with validation (422 and its causes), strict field
// validation and pruning, schema defaults, the status and scale subresources, and the CRD's
// deletion removing its objects and routes.
func TestCustomResourceDefinitionKubectl(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	crd := filepath.Join(crdsDir, "crontab.yaml")
	s.mustKubectl(t, "apply", "-f", crd)
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	waitForAPIResource(t, s, "stable.example.com", regexp.MustCompile(`(?m)^crontabs\s+ct\s+stable\.example\.com/v1\s+true\s+CronTab$`))
	if out := s.mustKubectl(t, "get", "crd"); !regexp.MustCompile(`(?m)^NAME\s+CREATED AT$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^crontabs\.stable\.example\.com\s+\d{4}-`).MatchString(out) {
		t.Errorf("kubectl get crd did not print NAME and CREATED AT:\n%s", out)
	}
	if got := s.mustKubectl(t, "get", "crd", "crontabs.stable.example.com", "-o",
		`jsonpath={.status.acceptedNames.kind} {.status.storedVersions} {.metadata.finalizers}`); got !=
		`CronTab ["v1"] ["customresourcecleanup.apiextensions.k8s.io"]` {
		t.Errorf("CRD status and finalizers = %q", got)
	}
	if got := s.mustKubectl(t, "get", "crd", "crontabs.stable.example.com", "-o",
		`jsonpath={.status.conditions[?(@.type=="NamesAccepted")].status}`); got != "True" {
		t.Errorf("NamesAccepted = %q, want True", got)
	}

	// A changed CRD (a new short name) is served within a second.
	manifest, err := os.ReadFile(crd)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(manifest), "      - ct\n", "      - ct\n      - cts\n", 1)
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "crontab.yaml", changed))
	waitForAPIResource(t, s, "stable.example.com", regexp.MustCompile(`(?m)^crontabs\s+ct,cts\s+stable\.example\.com/v1\s`))

	s.mustKubectl(t, "apply", "-f", filepath.Join(crdsDir, "my-crontab.yaml"))
	// The schema default (replicas 1) shows, and the printer columns.
	if got := s.mustKubectl(t, "get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.replicas}"); got != "1" {
		t.Errorf("defaulted spec.replicas = %q, want 1", got)
	}
	out := s.mustKubectl(t, "get", "crontabs")
	if !regexp.MustCompile(`(?m)^NAME\s+SPEC\s+REPLICAS\s+AGE$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^my-new-cron-object\s+\* \* \* \* \*/5\s+1\s+\d+s$`).MatchString(out) {
		t.Errorf("kubectl get crontabs did not print the printer columns:\n%s", out)
	}

	// Client-side apply again, kubectl edit, apply again: kubectl picks its patch type from the
	// PATCH operation's consumes in the served OpenAPI, so a strategic merge patch there would be
	// answered 415 (custom resources take JSON, merge and apply patches, as kube-apiserver's).
	cron, err := os.ReadFile(filepath.Join(crdsDir, "my-crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	reapplied := writeCRDManifest(t, "my-crontab.yaml", strings.Replace(string(cron), "my-awesome-cron-image", "newer-image", 1))
	if out := s.mustKubectl(t, "apply", "-f", reapplied); !strings.Contains(out, "crontab.stable.example.com/my-new-cron-object configured") {
		t.Errorf("kubectl apply of a changed CronTab: %s", out)
	}
	editor := writeCRDManifest(t, "editor.sh", "#!/bin/sh\nsed -i 's/image: newer-image/image: edited-image/' \"$1\"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := s.kubectlEnv(t, []string{"KUBE_EDITOR=" + editor}, "edit", "crontab", "my-new-cron-object"); err != nil ||
		!strings.Contains(out, "crontab.stable.example.com/my-new-cron-object edited") {
		t.Errorf("kubectl edit: err=%v, output:\n%s", err, out)
	}
	if got := s.mustKubectl(t, "get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.image}"); got != "edited-image" {
		t.Errorf("spec.image after kubectl edit = %q, want edited-image", got)
	}
	s.mustKubectl(t, "apply", "-f", filepath.Join(crdsDir, "my-crontab.yaml"))
	if got := s.mustKubectl(t, "get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.image}"); got != "my-awesome-cron-image" {
		t.Errorf("spec.image after a third kubectl apply = %q, want my-awesome-cron-image", got)
	}

	// kubectl get -w sees a later change.
	lines := s.watchLines(t, "get", "crontab", "-w", "--request-timeout=60s")
	waitForLine(t, lines, regexp.MustCompile(`^my-new-cron-object\s+\* \* \* \* \*/5\s+1\s`), s)
	s.mustKubectl(t, "patch", "ct", "my-new-cron-object", "--type=merge", "-p", `{"spec":{"replicas":3}}`)
	waitForLine(t, lines, regexp.MustCompile(`^my-new-cron-object\s+\* \* \* \* \*/5\s+3\s`), s)

	// The scale subresource.
	s.mustKubectl(t, "scale", "crontab", "my-new-cron-object", "--replicas=4")
	if got := s.mustKubectl(t, "get", "ct", "my-new-cron-object", "-o", "jsonpath={.spec.replicas}"); got != "4" {
		t.Errorf("replicas after kubectl scale = %q, want 4", got)
	}

	// An invalid CronTab: 422 with a cause per violation.
	invalid := writeCRDManifest(t, "invalid.yaml", `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: bad-cron
spec:
  cronSpec: "every minute"
  replicas: 20
  minReplicas: 2
`)
	out, err = s.kubectl(t, "apply", "-f", invalid)
	if err == nil || !strings.Contains(out, `The CronTab "bad-cron" is invalid`) ||
		!strings.Contains(out, "spec.cronSpec") || !strings.Contains(out, "spec.replicas") {
		t.Errorf("invalid CronTab: err=%v, output:\n%s", err, out)
	}
	// The same through client-go: a 422 Invalid Status with one cause per violation.
	bad := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "bad-cron"}, "spec": map[string]any{"cronSpec": "every minute", "replicas": int64(20)}}}
	_, err = s.dynamic.Resource(crontabs).Namespace("default").Create(context.Background(), bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("creating an invalid CronTab: %v, want 422 Invalid", err)
	} else if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) != 2 ||
		causes[0].Field != "spec.cronSpec" || causes[1].Field != "spec.replicas" {
		t.Errorf("causes = %+v, want spec.cronSpec and spec.replicas", causes)
	}
	transition := writeCRDManifest(t, "rule.yaml", `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: rule-cron
spec:
  cronSpec: "* * * * */5"
  replicas: 2
  minReplicas: 3
`)
	if out, err := s.kubectl(t, "apply", "-f", transition); err == nil ||
		!strings.Contains(out, "replicas should be greater than or equal to minReplicas.") {
		t.Errorf("CronTab breaking the x-kubernetes-validations rule: err=%v, output:\n%s", err, out)
	}

	// An unknown field: rejected by kubectl's default strict field validation, pruned with
	// --validate=false.
	unknown := writeCRDManifest(t, "unknown.yaml", `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: unknown-cron
spec:
  cronSpec: "* * * * */5"
  color: blue
`)
	if out, err := s.kubectl(t, "apply", "-f", unknown); err == nil || !strings.Contains(out, `unknown field "spec.color"`) {
		t.Errorf("strict field validation: err=%v, output:\n%s", err, out)
	}
	s.mustKubectl(t, "apply", "--validate=false", "-f", unknown)
	var pruned map[string]any
	if err := yaml.Unmarshal([]byte(s.mustKubectl(t, "get", "ct", "unknown-cron", "-o", "yaml")), &pruned); err != nil {
		t.Fatal(err)
	}
	if got := lookup(pruned, "spec.color"); got != nil {
		t.Errorf("spec.color was not pruned: %v", got)
	}
	if got := lookup(pruned, "spec.replicas"); got != float64(1) {
		t.Errorf("unknown-cron spec.replicas = %v, want the default 1", got)
	}

	s.mustKubectl(t, "delete", "crontab", "my-new-cron-object")
	if out, err := s.kubectl(t, "get", "crontab", "my-new-cron-object"); err == nil || !strings.Contains(out, "not found") {
		t.Errorf("get after delete: err=%v, output:\n%s", err, out)
	}

	// Deleting the CRD deletes its objects (unknown-cron) and its routes.
	s.mustKubectl(t, "delete", "-f", crd, "--timeout=30s")
	if out, err := s.kubectl(t, "get", "crd", "crontabs.stable.example.com"); err == nil || !strings.Contains(out, "not found") {
		t.Errorf("CRD still there after delete: err=%v, output:\n%s", err, out)
	}
	if out := s.mustKubectl(t, "api-resources", "--api-group=stable.example.com"); strings.Contains(out, "crontabs") {
		t.Errorf("crontabs still in discovery after the CRD was deleted:\n%s", out)
	}
	if out, err := s.kubectl(t, "get", "--raw", "/apis/stable.example.com/v1/namespaces/default/crontabs"); err == nil ||
		!strings.Contains(out, "NotFound") {
		t.Errorf("crontabs still served after the CRD was deleted: err=%v, output:\n%s", err, out)
	}
	// Recreating the CRD serves an empty resource: its objects went with the old one.
	s.mustKubectl(t, "apply", "-f", crd)
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	waitForAPIResource(t, s, "stable.example.com", regexp.MustCompile(`(?m)^crontabs\s`))
	if out := s.mustKubectl(t, "get", "crontabs", "-A"); !strings.Contains(out, "No resources found") {
		t.Errorf("objects survived their CRD:\n%s", out)
	}

	// CronTabs live in namespaces: deleting the namespace deletes them.
	s.mustKubectl(t, "create", "namespace", "team-a")
	s.mustKubectl(t, "apply", "-n", "team-a", "-f", filepath.Join(crdsDir, "my-crontab.yaml"))
	if out := s.mustKubectl(t, "get", "ct", "-n", "team-a"); !strings.Contains(out, "my-new-cron-object") {
		t.Errorf("kubectl get ct -n team-a:\n%s", out)
	}
	s.mustKubectl(t, "delete", "namespace", "team-a", "--timeout=30s")
	if out := s.mustKubectl(t, "get", "crontabs", "-A"); !strings.Contains(out, "No resources found") {
		t.Errorf("CronTabs survived their namespace:\n%s", out)
	}
}

// TestClusterScopedCustomResourceDefinition serves a cluster-scoped CRD with the default
// printer columns and no status subresource, and refuses a CRD whose kind another CRD of the
// group already serves (NamesAccepted=False).
func TestClusterScopedCustomResourceDefinition(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "colors.yaml", clusterCRD("colors", "Color")))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/colors.paint.example.com")
	waitForAPIResource(t, s, "paint.example.com", regexp.MustCompile(`(?m)^colors\s+paint\.example\.com/v1\s+false\s+Color$`))
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "red.yaml", `apiVersion: paint.example.com/v1
kind: Color
metadata:
  name: red
spec:
  hex: "#ff0000"
`))
	if out := s.mustKubectl(t, "get", "colors"); !regexp.MustCompile(`(?m)^NAME\s+AGE$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^red\s+\d+s$`).MatchString(out) {
		t.Errorf("kubectl get colors:\n%s", out)
	}

	// A second CRD of the group asking for the kind Color.
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "hues.yaml", clusterCRD("hues", "Color")))
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.mustKubectl(t, "get", "crd", "hues.paint.example.com", "-o",
			`jsonpath={.status.conditions[?(@.type=="NamesAccepted")].status} {.status.conditions[?(@.type=="NamesAccepted")].reason} {.status.conditions[?(@.type=="Established")].status}`)
		// kind and listKind (ColorList) both conflict; as upstream, the last check's reason stays.
		if got == "False ListKindConflict False" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hues conditions = %q, want NamesAccepted False ListKindConflict, Established False", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.mustKubectl(t, "delete", "crd", "colors.paint.example.com", "hues.paint.example.com", "--timeout=30s")
}

// clusterCRD is a cluster-scoped CRD of paint.example.com named plural with kind.
func clusterCRD(plural, kind string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.paint.example.com
spec:
  group: paint.example.com
  scope: Cluster
  names:
    plural: ` + plural + `
    kind: ` + kind + `
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                hex:
                  type: string
`
}

// writeCRDManifest writes content to name in a temporary directory and returns its path.
func writeCRDManifest(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitForAPIResource runs `kubectl api-resources --api-group=group` until its output matches
// re, failing after a second, the most the extensions server may take to serve a new CRD
// (and at least two runs, so that one slow kubectl start on a loaded machine does not count).
func waitForAPIResource(t *testing.T, s *apiServer, group string, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for run := 1; ; run++ {
		out, err := s.kubectl(t, "api-resources", "--api-group="+group)
		if err == nil && re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) && run >= 2 {
			t.Fatalf("kubectl api-resources --api-group=%s did not list %s within a second: err=%v\n%s", group, re, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

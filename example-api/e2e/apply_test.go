package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
)

// managedSets returns, per "manager/operation/subresource", the fieldsV1 of managedFields
// entries decoded as JSON (timestamps left out).
func managedSets(t *testing.T, entries []metav1.ManagedFieldsEntry) map[string]any {
	t.Helper()
	return fieldSets(t, entries, func(e metav1.ManagedFieldsEntry) string {
		return e.Manager + "/" + string(e.Operation) + "/" + e.Subresource
	})
}

// fieldSets returns the fieldsV1 of managedFields entries decoded as JSON, keyed by key.
func fieldSets(t *testing.T, entries []metav1.ManagedFieldsEntry, key func(metav1.ManagedFieldsEntry) string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, e := range entries {
		var fields any
		if e.FieldsV1 != nil {
			if err := json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields); err != nil {
				t.Fatal(err)
			}
		}
		out[key(e)] = fields
	}
	return out
}

// jsonValue decodes s.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

// kubectlManaged reads obj's managedFields with kubectl get -o json --show-managed-fields.
func (s *apiServer) kubectlManaged(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var obj unstructured.Unstructured
	out := s.mustKubectl(t, append(append([]string{"get"}, args...), "-o", "json", "--show-managed-fields")...)
	if err := json.Unmarshal([]byte(out), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return managedSets(t, obj.GetManagedFields())
}

// TestServerSideApplyKubectl is kubectl apply --server-side against the example API: the
// samples are created, an edited sample updates its object, a second field manager's
// conflicting apply gets kubectl's conflict message until it forces, and --show-managed-fields
// shows both managers' fields as kube-apiserver records them; a client-side applied object
// moves to server-side apply without conflicts, and an apply through v1alpha1 converts.
func TestServerSideApplyKubectl(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	out := s.mustKubectl(t, "apply", "--server-side", "-f", samplesDir)
	for _, name := range []string{"database.db.example.com/orders", "database.db.example.com/inventory",
		"databaseclass.db.example.com/standard-postgres", "backup.db.example.com/orders-nightly"} {
		if !strings.Contains(out, name+" serverside-applied") {
			t.Errorf("kubectl apply --server-side did not apply %s:\n%s", name, out)
		}
	}
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.replicas} {.spec.storage} {.metadata.generation}"); got != "1 10Gi 1" {
		t.Errorf("orders after apply: replicas, storage, generation = %q, want \"1 10Gi 1\" (defaults)", got)
	}
	// Applied through v1alpha1: sizeGiB 20 reads back as 20Gi through v1.
	if got := s.mustKubectl(t, "get", "databases.v1.db.example.com", "inventory", "-o", "jsonpath={.spec.storage}"); got != "20Gi" {
		t.Errorf("inventory storage through v1 = %q, want 20Gi", got)
	}

	sample, err := os.ReadFile(filepath.Join(samplesDir, "db_v1_database.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), "orders.yaml")
	if err := os.WriteFile(edited, []byte(strings.Replace(string(sample), "  engine: postgres\n", "  engine: postgres\n  replicas: 3\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "apply", "--server-side", "-f", edited)
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"); got != "3 2" {
		t.Errorf("after re-apply: replicas and generation = %q, want \"3 2\"", got)
	}

	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte("apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: orders\n  namespace: default\nspec:\n  engine: postgres\n  version: \"17.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = s.kubectl(t, "apply", "--server-side", "--field-manager=other", "-f", other)
	if err == nil || !strings.Contains(out, `Apply failed with 1 conflict: conflict with "kubectl": .spec.version`) ||
		!strings.Contains(out, "--force-conflicts") {
		t.Errorf("a conflicting apply: err=%v, output:\n%s", err, out)
	}
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.version}"); got != "16.2" {
		t.Errorf("the conflicting apply changed version to %q", got)
	}
	s.mustKubectl(t, "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", other)
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.version}"); got != "17.0" {
		t.Errorf("forced apply: version = %q, want 17.0", got)
	}
	want := map[string]any{
		"kubectl/Apply/": jsonValue(t, `{"f:spec":{"f:backup":{"f:schedule":{}},"f:engine":{},"f:parameters":{"f:max_connections":{}},"f:replicas":{}}}`),
		"other/Apply/":   jsonValue(t, `{"f:spec":{"f:engine":{},"f:version":{}}}`),
	}
	if diff := cmp.Diff(want, s.kubectlManaged(t, "database", "orders")); diff != "" {
		t.Errorf("managedFields of orders (-want +got):\n%s", diff)
	}

	// Client-side apply, then server-side apply of an edit: kubectl moves the fields of
	// kubectl-client-side-apply to its server-side manager, with no conflict.
	csa := filepath.Join(t.TempDir(), "csa.yaml")
	body := "apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: csa\n  namespace: default\nspec:\n  engine: mysql\n  version: \"8.0\"\n"
	if err := os.WriteFile(csa, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "apply", "-f", csa)
	if got := s.kubectlManaged(t, "database", "csa"); got["kubectl-client-side-apply/Update/"] == nil {
		t.Errorf("client-side apply recorded %v, want a kubectl-client-side-apply Update entry", got)
	}
	if err := os.WriteFile(csa, []byte(strings.Replace(body, "8.0", "8.4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "apply", "--server-side", "-f", csa)
	managed := s.kubectlManaged(t, "database", "csa")
	if _, ok := managed["kubectl-client-side-apply/Update/"]; ok {
		t.Errorf("after the upgrade to server-side apply, kubectl-client-side-apply still owns fields: %v", managed)
	}
	if got := s.mustKubectl(t, "get", "database", "csa", "-o", "jsonpath={.spec.version}"); got != "8.4" {
		t.Errorf("csa version = %q, want 8.4", got)
	}
}

// TestServerSideApplyClientGo applies with client-go: a dynamic Apply creates and then
// updates a Database; a dynamic Update adds an Update entry; ApplyStatus changes only status;
// the typed clientset's Apply of built-in kinds (a Namespace, a Role) round-trips with
// applyconfigurations.
func TestServerSideApplyClientGo(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := s.dynamic.Resource(databasesV1).Namespace("default")
	cfg := func(version string, replicas int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "db.example.com/v1", "kind": "Database",
			"metadata": map[string]any{"name": "app"},
			"spec":     map[string]any{"engine": "postgres", "version": version, "replicas": replicas}}}
	}
	got, err := dbs.Apply(ctx, "app", cfg("16.1", 2), metav1.ApplyOptions{FieldManager: "deployer"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(got.Object, "spec", "version"); v != "16.1" || got.GetGeneration() != 1 {
		t.Errorf("apply created %v", got.Object)
	}
	got, err = dbs.Apply(ctx, "app", cfg("16.2", 2), metav1.ApplyOptions{FieldManager: "deployer"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(got.Object, "spec", "version"); v != "16.2" || got.GetGeneration() != 2 {
		t.Errorf("second apply: %v", got.Object)
	}
	// A conflicting apply by another manager is a 409 Conflict naming the field.
	if _, err := dbs.Apply(ctx, "app", cfg("16.2", 5), metav1.ApplyOptions{FieldManager: "scaler"}); !apierrors.IsConflict(err) ||
		!strings.Contains(err.Error(), `conflict with "deployer": .spec.replicas`) {
		t.Errorf("conflicting apply: %v", err)
	}
	// An update through the dynamic client adds an Update entry of its manager.
	got.SetLabels(map[string]string{"tier": "gold"})
	updated, err := dbs.Update(ctx, got, metav1.UpdateOptions{FieldManager: "labeller"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"deployer/Apply/":  jsonValue(t, `{"f:spec":{"f:engine":{},"f:replicas":{},"f:version":{}}}`),
		"labeller/Update/": jsonValue(t, `{"f:metadata":{"f:labels":{".":{},"f:tier":{}}}}`),
	}
	if diff := cmp.Diff(want, managedSets(t, updated.GetManagedFields())); diff != "" {
		t.Errorf("managedFields after update (-want +got):\n%s", diff)
	}
	// ApplyStatus changes status only, whatever else the configuration says.
	status := cfg("99.0", 9)
	status.Object["status"] = map[string]any{"phase": "Ready", "readyReplicas": int64(2)}
	got, err = dbs.ApplyStatus(ctx, "app", status, metav1.ApplyOptions{FieldManager: "operator", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(got.Object, "spec", "version"); v != "16.2" {
		t.Errorf("status apply changed spec.version to %q", v)
	}
	if p, _, _ := unstructured.NestedString(got.Object, "status", "phase"); p != "Ready" {
		t.Errorf("status apply: phase %q", p)
	}
	if diff := cmp.Diff(jsonValue(t, `{"f:status":{"f:phase":{},"f:readyReplicas":{}}}`), managedSets(t, got.GetManagedFields())["operator/Apply/status"]); diff != "" {
		t.Errorf("status entry (-want +got):\n%s", diff)
	}

	// An apply to /scale owns the replicas through the scale subresource (in the
	// resource's version), taking them from the deployer.
	scale := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": map[string]any{"name": "app", "namespace": "default"}, "spec": map[string]any{"replicas": int64(4)}}}
	if _, err := dbs.Apply(ctx, "app", scale, metav1.ApplyOptions{FieldManager: "autoscaler", Force: true}, "scale"); err != nil {
		t.Fatal(err)
	}
	got, err = dbs.Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 4 {
		t.Errorf("replicas after the scale apply: %d, want 4", r)
	}
	sets := managedSets(t, got.GetManagedFields())
	if diff := cmp.Diff(jsonValue(t, `{"f:spec":{"f:replicas":{}}}`), sets["autoscaler/Apply/scale"]); diff != "" {
		t.Errorf("scale entry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(jsonValue(t, `{"f:spec":{"f:engine":{},"f:version":{}}}`), sets["deployer/Apply/"]); diff != "" {
		t.Errorf("the deployer's entry after the scale apply (-want +got):\n%s", diff)
	}

	// The typed clientset and applyconfigurations, on built-in kinds.
	cs, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Apply(ctx, corev1ac.Namespace("team-a").WithLabels(map[string]string{"team": "a"}),
		metav1.ApplyOptions{FieldManager: "platform"})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Labels["team"] != "a" || ns.Status.Phase != "Active" {
		t.Errorf("applied namespace: %+v", ns)
	}
	role := rbacv1ac.Role("reader", "team-a").WithRules(rbacv1ac.PolicyRule().
		WithAPIGroups("db.example.com").WithResources("databases").WithVerbs("get", "list"))
	r, err := cs.RbacV1().Roles("team-a").Apply(ctx, role, metav1.ApplyOptions{FieldManager: "platform"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rules) != 1 || len(r.ManagedFields) != 1 || r.ManagedFields[0].Manager != "platform" ||
		r.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("applied role: rules %+v, managedFields %+v", r.Rules, r.ManagedFields)
	}
	// An APIService, applied through the dynamic client.
	apiservices := s.dynamic.Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"})
	svc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.extra.example.com"},
		"spec": map[string]any{"group": "extra.example.com", "version": "v1", "groupPriorityMinimum": int64(100),
			"versionPriority": int64(10)}}}
	applied, err := apiservices.Apply(ctx, "v1.extra.example.com", svc, metav1.ApplyOptions{FieldManager: "platform"})
	if err != nil {
		t.Fatal(err)
	}
	if sets := managedSets(t, applied.GetManagedFields()); sets["platform/Apply/"] == nil {
		t.Errorf("applied APIService: managedFields %v", sets)
	}
	if _, err := cs.RbacV1().Roles("team-a").Apply(ctx, role, metav1.ApplyOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "fieldManager: Required value: is required for apply patch") {
		t.Errorf("apply without a fieldManager: %v", err)
	}
}

// TestServerSideApplyCustomResources applies CronTabs: the CRD itself is applied server-side,
// kubectl explain prints its schema's descriptions (from the published OpenAPI), and an apply
// of a CronTab merges by the CRD's schema; the scale subresource maps replicas ownership.
func TestServerSideApplyCustomResources(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	manifest, err := os.ReadFile(filepath.Join(crdsDir, "crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	described := strings.Replace(string(manifest), "                cronSpec:\n                  type: string\n",
		"                cronSpec:\n                  description: CronSpec is when the job runs, in cron syntax.\n                  type: string\n", 1)
	if described == string(manifest) {
		t.Fatal("the CronTab CRD's cronSpec is not where the test expects it")
	}
	s.mustKubectl(t, "apply", "--server-side", "-f", writeCRDManifest(t, "crontab.yaml", described))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	if got := s.kubectlManaged(t, "crd", "crontabs.stable.example.com"); got["kubectl/Apply/"] == nil {
		t.Errorf("the CRD's managedFields lack kubectl's apply: %v", got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := s.kubectl(t, "explain", "crontab.spec.cronSpec")
		if err == nil && strings.Contains(out, "CronSpec is when the job runs, in cron syntax.") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl explain crontab.spec.cronSpec: %v\n%s", err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}

	s.mustKubectl(t, "apply", "--server-side", "-f", filepath.Join(crdsDir, "my-crontab.yaml"))
	want := map[string]any{"kubectl/Apply/": jsonValue(t, `{"f:spec":{"f:cronSpec":{},"f:image":{}}}`)}
	if diff := cmp.Diff(want, s.kubectlManaged(t, "crontab", "my-new-cron-object")); diff != "" {
		t.Errorf("managedFields of the CronTab (-want +got):\n%s", diff)
	}
	other := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"my-new-cron-object"},"spec":{"image":"other-image","replicas":2}}`
	out, err := s.kubectl(t, "apply", "--server-side", "--field-manager=other", "-f", writeCRDManifest(t, "other.json", other))
	if err == nil || !regexp.MustCompile(`conflict with "kubectl": \.spec\.image`).MatchString(out) {
		t.Errorf("a conflicting apply of a CronTab: err=%v\n%s", err, out)
	}
	s.mustKubectl(t, "scale", "crontab", "my-new-cron-object", "--replicas=4")
	if got := s.mustKubectl(t, "get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.replicas}"); got != "4" {
		t.Errorf("scaled replicas = %q, want 4", got)
	}
}

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
)

// TestDatabaseUsage drives the computed resource (+apigen:storage=rest, the REST in
// example-api/apis/db/install/databaseusage.go) through kubectl and client-go: tables with
// its printer columns, -o yaml, label and field selectors, 404, OpenAPI (kubectl explain),
// discovery listing only get,
// list and watch, 405 on create, a watch that follows its Databases, and RBAC.
func TestDatabaseUsage(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "-f", writeCRDManifest(t, "usage.yaml", usageObjects))

	out := s.mustKubectl(t, "get", "databaseusages", "-n", "usage")
	for _, want := range []string{"NAME", "CONNECTIONS", "CPU(CORES)", "STORAGE(BYTES)", "pg-a", "my-b"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get databaseusages: no %q in\n%s", want, out)
		}
	}
	out = s.mustKubectl(t, "get", "databaseusage", "pg-a", "-n", "usage", "-o", "yaml")
	for _, want := range []string{"kind: DatabaseUsage", "apiVersion: db.example.com/v1", "engine: postgres", "window: 10s", "cpu:"} { // connections may be 0, which omitempty leaves out
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get databaseusage pg-a -o yaml: no %q in\n%s", want, out)
		}
	}
	// kubectl with both selectors; client-go below for each alone and the errors.
	if got := strings.TrimSpace(s.mustKubectl(t, "get", "databaseusages", "-A", "-o", "name", "-l", "tier in (web,db)",
		"--field-selector", "engine=mysql,metadata.namespace=usage")); got != "databaseusage.db.example.com/my-b" {
		t.Errorf("kubectl get databaseusages selecting tier and engine = %q, want my-b's", got)
	}
	// OpenAPI describes it, as any kind.
	if out := s.mustKubectl(t, "explain", "databaseusages.usage"); !strings.Contains(out, "connections") ||
		!strings.Contains(out, "Connections is the number of open client connections.") {
		t.Errorf("kubectl explain databaseusages.usage:\n%s", out)
	}
	// Discovery lists the verbs the REST implements (and +genclient allows): get, list, watch.
	out = s.mustKubectl(t, "api-resources", "--api-group=db.example.com", "-o", "wide")
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "databaseusages ") {
			line = l
		}
	}
	if fields := strings.Fields(line); len(fields) < 5 || fields[4] != "get,list,watch" {
		t.Errorf("kubectl api-resources: databaseusages line %q, want verbs get,list,watch in\n%s", line, out)
	}

	// client-go: the typed clientset reads; a create answers 405 MethodNotAllowed.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	usages := versioned.NewForConfigOrDie(s.config).DbV1().DatabaseUsages("usage")
	for _, tc := range []struct {
		opts metav1.ListOptions
		want string
	}{
		{metav1.ListOptions{LabelSelector: "tier=db"}, "my-b"},
		{metav1.ListOptions{FieldSelector: "engine=postgres"}, "pg-a"},
		{metav1.ListOptions{FieldSelector: "metadata.name=my-b"}, "my-b"},
	} {
		list, err := usages.List(ctx, tc.opts)
		if err != nil || len(list.Items) != 1 || list.Items[0].Name != tc.want {
			t.Errorf("typed List %+v: %v %+v, want %s only", tc.opts, err, list, tc.want)
		}
	}
	if _, err := usages.List(ctx, metav1.ListOptions{FieldSelector: "spec.engine=mysql"}); !apierrors.IsBadRequest(err) ||
		!strings.Contains(err.Error(), "field label not supported: spec.engine") {
		t.Errorf("selecting an unsupported field: %v, want 400 field label not supported", err)
	}
	if _, err := usages.Get(ctx, "nope", metav1.GetOptions{}); !apierrors.IsNotFound(err) ||
		err.Error() != `databaseusages.db.example.com "nope" not found` {
		t.Errorf("get of a missing usage: %v, want 404", err)
	}
	u, err := usages.Get(ctx, "pg-a", metav1.GetOptions{})
	if err != nil || u.Usage.CPU.IsZero() || u.Window.Duration != 10*time.Second {
		t.Fatalf("typed Get pg-a: %v %+v", err, u)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "db.example.com/v1", "kind": "DatabaseUsage",
		"metadata": map[string]any{"name": "x"}}}
	_, err = s.dynamic.Resource(schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databaseusages"}).
		Namespace("usage").Create(ctx, obj, metav1.CreateOptions{})
	if !apierrors.IsMethodNotSupported(err) {
		t.Errorf("create of a DatabaseUsage: %v, want 405 MethodNotAllowed", err)
	}

	// kubectl get -w, selecting tier=web: relabelling my-b brings its usage in (ADDED by
	// the selector), deleting pg-a's Database takes its usage out.
	lines := s.watchLines(t, "get", "databaseusages", "-n", "usage", "-l", "tier=web", "-w", "--output-watch-events")
	waitLine := func(what string, match func(string) bool) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("kubectl get -w ended before %s", what)
				}
				if match(l) {
					return
				}
			case <-timeout:
				t.Fatalf("kubectl get -w: no %s in 30s", what)
			}
		}
	}
	waitLine("pg-a listed", func(l string) bool { return strings.Contains(l, "pg-a") })
	dbs := versioned.NewForConfigOrDie(s.config).DbV1().Databases("usage")
	if _, err := dbs.Patch(ctx, "my-b", types.MergePatchType, []byte(`{"metadata":{"labels":{"tier":"web"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitLine("my-b ADDED", func(l string) bool { return strings.HasPrefix(l, "ADDED") && strings.Contains(l, "my-b") })
	if err := dbs.Delete(ctx, "pg-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitLine("pg-a DELETED", func(l string) bool { return strings.HasPrefix(l, "DELETED") && strings.Contains(l, "pg-a") })

	// RBAC: the filter chain authorizes as for any resource.
	s.refused(t, `databaseusages.db.example.com is forbidden: User "alice" cannot list resource "databaseusages" in API group "db.example.com" in the namespace "usage"`,
		"alice", "get", "databaseusages", "-n", "usage")
	s.mustKubectl(t, "create", "-f", writeCRDManifest(t, "usage-rbac.yaml", usageReader))
	if out := s.eventually(t, "alice", "get", "databaseusage", "my-b", "-n", "usage"); !strings.Contains(out, "my-b") {
		t.Errorf("alice's get databaseusage my-b:\n%s", out)
	}
}

// usageObjects are TestDatabaseUsage's namespace and Databases.
const usageObjects = `apiVersion: v1
kind: Namespace
metadata: {name: usage}
---
apiVersion: db.example.com/v1
kind: Database
metadata: {name: pg-a, namespace: usage, labels: {tier: web}}
spec: {engine: postgres, replicas: 2, storage: 10Gi}
---
apiVersion: db.example.com/v1
kind: Database
metadata: {name: my-b, namespace: usage, labels: {tier: db}}
spec: {engine: mysql}
`

// usageReader lets alice read DatabaseUsages in the namespace usage.
const usageReader = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: usage-reader, namespace: usage}
rules:
- apiGroups: [db.example.com]
  resources: [databaseusages]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-usage, namespace: usage}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: usage-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
`

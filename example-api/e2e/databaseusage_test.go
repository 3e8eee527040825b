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

	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
)

// TestDatabaseUsage drives the computed resource (+apigen:storage=rest, the REST in
// example-api/apis/db/install/databaseusage.go) through kubectl and client-go: tables with
// its printer columns, -o yaml, label and field selectors, 404, discovery listing only get,
// list and watch, 405 on create, a watch that follows its Databases, and RBAC.
func TestDatabaseUsage(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "namespace", "usage")
	s.create(t, "apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: pg-a\n  namespace: usage\n  labels: {tier: web}\n"+
		"spec:\n  engine: postgres\n  replicas: 2\n  storage: 10Gi\n")
	s.create(t, "apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: my-b\n  namespace: usage\n  labels: {tier: db}\n"+
		"spec:\n  engine: mysql\n")

	out := s.mustKubectl(t, "get", "databaseusages", "-n", "usage")
	for _, want := range []string{"NAME", "CONNECTIONS", "CPU(CORES)", "STORAGE(BYTES)", "pg-a", "my-b"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get databaseusages: no %q in\n%s", want, out)
		}
	}
	out = s.mustKubectl(t, "get", "databaseusage", "pg-a", "-n", "usage", "-o", "yaml")
	for _, want := range []string{"kind: DatabaseUsage", "apiVersion: db.example.com/v1", "engine: postgres", "window: 10s", "connections:"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get databaseusage pg-a -o yaml: no %q in\n%s", want, out)
		}
	}
	names := func(args ...string) string {
		return strings.TrimSpace(s.mustKubectl(t, append([]string{"get", "databaseusages", "-n", "usage", "-o", "name"}, args...)...))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-l", "tier=web"}, "databaseusage.db.example.com/pg-a"},
		{[]string{"--field-selector", "engine=mysql"}, "databaseusage.db.example.com/my-b"},
		{[]string{"--field-selector", "metadata.name=pg-a"}, "databaseusage.db.example.com/pg-a"},
	} {
		if got := names(tc.args...); got != tc.want {
			t.Errorf("kubectl get databaseusages %v = %q, want %q", tc.args, got, tc.want)
		}
	}
	if out, err := s.kubectl(t, "get", "databaseusages", "-n", "usage", "--field-selector", "spec.engine=mysql"); err == nil ||
		!strings.Contains(out, "field label not supported: spec.engine") {
		t.Errorf("selecting an unsupported field: %v\n%s", err, out)
	}
	if out, err := s.kubectl(t, "get", "databaseusage", "nope", "-n", "usage"); err == nil ||
		!strings.Contains(out, `databaseusages.db.example.com "nope" not found`) {
		t.Errorf("get of a missing usage: %v\n%s", err, out)
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
	client := versioned.NewForConfigOrDie(s.config)
	list, err := client.DbV1().DatabaseUsages("usage").List(ctx, metav1.ListOptions{LabelSelector: "tier=db"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "my-b" || list.Items[0].Engine != "mysql" {
		t.Fatalf("typed List tier=db: %v %+v", err, list)
	}
	u, err := client.DbV1().DatabaseUsages("usage").Get(ctx, "pg-a", metav1.GetOptions{})
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
	s.mustKubectl(t, "label", "database", "my-b", "-n", "usage", "tier=web", "--overwrite")
	waitLine("my-b ADDED", func(l string) bool { return strings.HasPrefix(l, "ADDED") && strings.Contains(l, "my-b") })
	s.mustKubectl(t, "delete", "database", "pg-a", "-n", "usage")
	waitLine("pg-a DELETED", func(l string) bool { return strings.HasPrefix(l, "DELETED") && strings.Contains(l, "pg-a") })

	// RBAC: the filter chain authorizes as for any resource.
	s.refused(t, `databaseusages.db.example.com is forbidden: User "alice" cannot list resource "databaseusages" in API group "db.example.com" in the namespace "usage"`,
		"alice", "get", "databaseusages", "-n", "usage")
	s.mustKubectl(t, "create", "role", "usage-reader", "-n", "usage", "--verb=get,list,watch", "--resource=databaseusages.db.example.com")
	s.mustKubectl(t, "create", "rolebinding", "alice-usage", "-n", "usage", "--role=usage-reader", "--user=alice")
	if out := s.eventually(t, "alice", "get", "databaseusage", "my-b", "-n", "usage"); !strings.Contains(out, "my-b") {
		t.Errorf("alice's get databaseusage my-b:\n%s", out)
	}
}

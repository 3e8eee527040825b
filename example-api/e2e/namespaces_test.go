package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// databaseManifest is a Database named name in namespace ns.
func databaseManifest(name, ns string) string {
	return `apiVersion: db.example.com/v1
kind: Database
metadata:
  name: ` + name + `
  namespace: ` + ns + `
spec:
  engine: postgres
  version: "16.2"
`
}

// writeNamespacedManifest writes content to a file in a test directory and returns its path.
func writeNamespacedManifest(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifest.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNamespaces drives namespaces with kubectl as against kube-apiserver: the system
// namespaces exist, a namespace is created, content in a missing or terminating namespace is
// refused (NamespaceLifecycle), deleting a namespace deletes its content (waiting for
// finalizers) and then the namespace, and default may not be deleted.
func TestNamespaces(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)

	s.mustKubectl(t, "create", "namespace", "team-a")
	out := s.mustKubectl(t, "get", "ns")
	if !regexp.MustCompile(`^NAME\s+STATUS\s+AGE\n`).MatchString(out) {
		t.Errorf("kubectl get ns columns:\n%s", out)
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "team-a"} {
		if !regexp.MustCompile(`(?m)^` + ns + `\s+Active\s+\S+$`).MatchString(out) {
			t.Errorf("kubectl get ns lacks %s Active:\n%s", ns, out)
		}
	}

	s.mustKubectl(t, "apply", "-f", writeNamespacedManifest(t, databaseManifest("orders", "team-a")))
	out, err := s.kubectl(t, "apply", "-f", writeNamespacedManifest(t, databaseManifest("orders", "no-such-ns")))
	if err == nil || !strings.Contains(out, `namespaces "no-such-ns" not found`) {
		t.Errorf("create in a missing namespace: err=%v\n%s", err, out)
	}

	// A finalizer keeps the Database, and so the namespace, while it terminates.
	s.mustKubectl(t, "patch", "database", "orders", "-n", "team-a", "--type=merge",
		"-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
	s.mustKubectl(t, "delete", "ns", "team-a", "--wait=false")
	out = s.mustKubectl(t, "get", "ns", "team-a")
	if !regexp.MustCompile(`(?m)^team-a\s+Terminating\s`).MatchString(out) {
		t.Errorf("team-a after delete:\n%s", out)
	}
	out, err = s.kubectl(t, "create", "-f", writeNamespacedManifest(t, databaseManifest("late", "team-a")))
	if err == nil || !strings.Contains(out, "unable to create new content in namespace team-a because it is being terminated") {
		t.Errorf("create in a terminating namespace: err=%v\n%s", err, out)
	}
	waitFor(t, func() bool {
		out := s.mustKubectl(t, "get", "database", "orders", "-n", "team-a", "-o", "jsonpath={.metadata.deletionTimestamp}")
		return out != ""
	}, "the namespace controller marks orders deleted")
	s.mustKubectl(t, "patch", "database", "orders", "-n", "team-a", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	waitFor(t, func() bool {
		out, err := s.kubectl(t, "get", "ns", "team-a")
		return err != nil && strings.Contains(out, `namespaces "team-a" not found`)
	}, "team-a removed")
	if out := s.mustKubectl(t, "get", "databases", "-A", "-o", "name"); strings.Contains(out, "orders") {
		t.Errorf("databases left after team-a was removed:\n%s", out)
	}

	out, err = s.kubectl(t, "delete", "ns", "default")
	if err == nil || !strings.Contains(out, `namespaces "default" is forbidden: this namespace may not be deleted`) {
		t.Errorf("delete default: err=%v\n%s", err, out)
	}
}

// TestNamespacesClientGo reads namespaces with client-go's typed clientset, which asks for
// protobuf first and accepts the JSON the server answers.
func TestNamespacesClientGo(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	cs, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, ns := range list.Items {
		names[ns.Name] = ns.Status.Phase == "Active"
	}
	for _, want := range []string{"default", "kube-system", "kube-public"} {
		if !names[want] {
			t.Errorf("namespace %s missing or not Active in %v", want, names)
		}
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
	if err != nil || ns.Name != "kube-system" || len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != "kubernetes" {
		t.Fatalf("get kube-system: %+v, %v", ns, err)
	}
	groups, err := cs.Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	if len(groups.Groups) == 0 || groups.Groups[0].Name != "" || groups.Groups[0].PreferredVersion.GroupVersion != "v1" {
		t.Errorf("discovery: want the core group first, got %+v", groups.Groups)
	}
	for _, g := range groups.Groups[1:] {
		if g.Name == "" {
			t.Errorf("the core group is listed twice (in /apis too)")
		}
	}
}

// waitFor polls cond every 200ms for up to 30s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

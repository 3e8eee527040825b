package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
)

// TestReplicasReadYourWrites runs two servers on one etcd, each with its own watch cache:
// a write through one is at once in the other's consistent lists (resourceVersion "", served
// from its cache once it has caught up with etcd) and gets, and its watchers see it, with no
// stale read, as two kube-apiservers behave. (Over HTTP a cache that served consistent lists
// without waiting would mostly have caught up anyway; storagetest's replica-read-your-writes
// case, which the cache's conformance run includes, is the sharp check.)
func TestReplicasReadYourWrites(t *testing.T) {
	t.Parallel()
	etcd := startEtcd(t)
	a := startServer(t, "--etcd-servers="+etcd.URL())
	b := startServer(t, "--etcd-servers="+etcd.URL())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	viaA := a.unthrottled(t).Resource(databasesV1).Namespace("default")
	viaB := b.unthrottled(t).Resource(databasesV1).Namespace("default")
	start, err := viaB.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := viaB.Watch(ctx, metav1.ListOptions{ResourceVersion: start.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for i := range 15 {
		name := fmt.Sprintf("replica-%02d", i)
		created, err := viaA.Create(ctx, newDatabase("db.example.com/v1", name, map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s through A: %v", name, err)
		}
		list, err := viaB.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list through B: %v", err)
		}
		if !hasVersion(list.Items, name, created.GetResourceVersion()) {
			t.Fatalf("B's consistent list right after A created %s at %s lacks it", name, created.GetResourceVersion())
		}
		if err := unstructured.SetNestedField(created.Object, "on", "spec", "parameters", "replicated"); err != nil {
			t.Fatal(err)
		}
		updated, err := viaB.Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update %s through B: %v", name, err)
		}
		paged, err := viaA.List(ctx, metav1.ListOptions{Limit: 5})
		if err != nil {
			t.Fatalf("list through A: %v", err)
		}
		for paged.GetContinue() != "" && !hasVersion(paged.Items, name, updated.GetResourceVersion()) {
			if paged, err = viaA.List(ctx, metav1.ListOptions{Limit: 5, Continue: paged.GetContinue()}); err != nil {
				t.Fatalf("list through A: %v", err)
			}
		}
		if !hasVersion(paged.Items, name, updated.GetResourceVersion()) {
			t.Fatalf("A's paged consistent list right after B updated %s to %s lacks the update", name, updated.GetResourceVersion())
		}
		for _, want := range []struct {
			typ watch.EventType
			rv  string
		}{{watch.Added, created.GetResourceVersion()}, {watch.Modified, updated.GetResourceVersion()}} {
			select {
			case ev := <-w.ResultChan():
				if u, ok := ev.Object.(*unstructured.Unstructured); !ok || ev.Type != want.typ || u.GetName() != name || u.GetResourceVersion() != want.rv {
					t.Fatalf("B's watch: %s %v; want %s of %s at %s", ev.Type, ev.Object, want.typ, name, want.rv)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("B's watch: no %s of %s within 10s", want.typ, name)
			}
		}
	}
}

// hasVersion reports whether items holds name at resourceVersion rv.
func hasVersion(items []unstructured.Unstructured, name, rv string) bool {
	for _, it := range items {
		if it.GetName() == name && it.GetResourceVersion() == rv {
			return true
		}
	}
	return false
}

// TestReplicasStartTogether starts three servers on one etcd at the same moment, as a
// Deployment's replicas start: each becomes ready, the bootstrap (system namespaces, RBAC's
// default roles and bindings, the Local APIServices) is there once, no replica logs an error,
// each singleton controller's Lease has one holder, and the replicas' certificates have one
// issuer.
func TestReplicasStartTogether(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	etcd := startEtcd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	procs := startReplicas(ctx, t, 3, "--etcd-servers="+etcd.URL())
	client, err := kubernetes.NewForConfig(procs[0].Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"default", "kube-system", "kube-public"} {
		if _, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
	for _, name := range []string{"cluster-admin", "admin", "edit", "view", "system:discovery"} {
		if _, err := client.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("ClusterRole %s: %v", name, err)
		}
	}
	// Every replica's Leases agree: one holder each (the replicas share them through etcd).
	holders := map[string]string{}
	within(t, 30*time.Second, "every singleton Lease held", func() bool {
		leases, err := client.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, l := range leases.Items {
			if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
				holders[l.Name] = *l.Spec.HolderIdentity
			}
		}
		return len(holders) >= 3
	})
	t.Logf("Lease holders: %v", holders)
	// One CA (kept in etcd) signs every replica's certificates: the kubeconfig replica 0
	// wrote works against the others.
	for i, p := range procs[1:] {
		cfg := rest.CopyConfig(procs[0].Config)
		cfg.Host = p.URL
		other, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{}); err != nil {
			t.Errorf("replica 0's kubeconfig against replica %d: %v", i+1, err)
		}
	}
	for i, p := range procs {
		for _, line := range strings.Split(p.Output(), "\n") {
			// client-go's leader election logs losing the race to create a Lease as an
			// error, as it does against kube-apiserver, and retries: not a bootstrap error.
			benign := strings.Contains(line, "Error initially creating lease lock") && strings.Contains(line, "already exists")
			if strings.Contains(line, "level=ERROR") && !benign {
				t.Errorf("replica %d logged an error: %s", i, line)
			}
		}
	}
}

// startReplicas starts n example-apiservers at the same moment, each with its own data
// directory and args, as a Deployment's replicas start; they are stopped in t.Cleanup (a
// replica killed by the test is stopped silently). It fails t when one does not become ready.
func startReplicas(ctx context.Context, t *testing.T, n int, args ...string) []*serverproc.Process {
	t.Helper()
	bin := serverBinary(t)
	procs := make([]*serverproc.Process, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range procs {
		dir := t.TempDir()
		wg.Go(func() { procs[i], errs[i] = serverproc.Start(ctx, bin, dir, args...) })
	}
	wg.Wait()
	for _, p := range procs {
		if p != nil {
			t.Cleanup(func() { _ = p.Stop(20 * time.Second) })
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	return procs
}

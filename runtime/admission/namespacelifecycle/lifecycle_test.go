package namespacelifecycle

import (
	"context"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	"github.com/apigen-dev/apigen/runtime/namespace"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// newPlugin returns the plugin reading namespaces from a fresh etcd holding team-a (Active)
// and gone (Terminating), and the namespaces storage with the plugin as its admission chain.
func newPlugin(t *testing.T) (*Plugin, *namespace.REST) {
	t.Helper()
	client, _ := etcdtest.Run(t)
	info, err := coreinstall.NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	store := info.VersionedResourcesStorageMap["v1"]["namespaces"].(*registry.Store)
	plugins := &admission.Plugins{}
	if err := plugins.Register(PluginName, true, New); err != nil {
		t.Fatal(err)
	}
	chain, err := plugins.NewChain(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	store.Admission = chain
	p := chain.Plugins()[0].(*Plugin)
	p.SetListers(func(gr schema.GroupResource) rest.Lister {
		if gr == (schema.GroupResource{Resource: "namespaces"}) {
			return store
		}
		return nil
	})
	nsREST, _, _ := namespace.NewREST(store)
	ctx := context.Background()
	for _, name := range []string{"team-a", "gone", "default"} {
		if _, err := nsREST.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := nsREST.Delete(ctx, "gone", nil); err != nil {
		t.Fatal(err)
	}
	return p, nsREST
}

func databaseAttrs(op admission.Operation, ns string) *admission.Attributes {
	return &admission.Attributes{Operation: op, Namespace: ns, Name: "main",
		Kind:     schema.GroupVersionKind{Group: "db.example.com", Version: "v1", Kind: "Database"},
		Resource: schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databases"}}
}

func TestAdmit(t *testing.T) {
	p, _ := newPlugin(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		a        *admission.Attributes
		wantCode int32
		wantMsg  string
	}{
		{"create in an active namespace", databaseAttrs(admission.Create, "team-a"), 0, ""},
		{"create in a missing namespace", databaseAttrs(admission.Create, "no-such-ns"), http.StatusNotFound, `namespaces "no-such-ns" not found`},
		{"update in a missing namespace", databaseAttrs(admission.Update, "no-such-ns"), http.StatusNotFound, `namespaces "no-such-ns" not found`},
		{"create in a terminating namespace", databaseAttrs(admission.Create, "gone"), http.StatusForbidden,
			`databases.db.example.com "main" is forbidden: unable to create new content in namespace gone because it is being terminated`},
		{"update in a terminating namespace", databaseAttrs(admission.Update, "gone"), 0, ""},
		{"delete in a missing namespace", databaseAttrs(admission.Delete, "no-such-ns"), 0, ""},
		{"cluster-scoped", databaseAttrs(admission.Create, ""), 0, ""},
		{"a namespace itself", &admission.Attributes{Operation: admission.Create, Name: "new",
			Resource: corev1.SchemeGroupVersion.WithResource("namespaces")}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Admit(ctx, tc.a)
			if tc.wantCode == 0 {
				if err != nil {
					t.Fatalf("want admitted, got %v", err)
				}
				return
			}
			status, ok := err.(apierrors.APIStatus)
			if !ok || status.Status().Code != tc.wantCode || status.Status().Message != tc.wantMsg {
				t.Fatalf("want %d %q, got %v", tc.wantCode, tc.wantMsg, err)
			}
		})
	}
	err := p.Admit(ctx, databaseAttrs(admission.Create, "gone"))
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Type != corev1.NamespaceTerminatingCause || causes[0].Field != "metadata.namespace" {
		t.Errorf("causes = %+v", causes)
	}
}

func TestImmortalNamespaces(t *testing.T) {
	_, nsREST := newPlugin(t)
	ctx := context.Background()
	_, _, err := nsREST.Delete(ctx, "default", nil)
	if !apierrors.IsForbidden(err) || err.Error() != `namespaces "default" is forbidden: this namespace may not be deleted` {
		t.Fatalf("delete default: got %v", err)
	}
	if _, _, err := nsREST.Delete(ctx, "team-a", nil); err != nil {
		t.Errorf("delete team-a: %v", err)
	}
}

// TestCache runs the plugin's namespace cache: answers come from it once synced, a
// namespace it does not know yet is read from storage, and a namespace whose DELETE was just
// admitted is read from storage (Terminating at once).
func TestCache(t *testing.T) {
	p, nsREST := newPlugin(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go p.Run(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if phase, ok := p.cache.lookup("team-a", time.Now()); ok && phase == corev1.NamespaceActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cache did not sync")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, ok := p.cache.lookup("gone", time.Now()); ok {
		t.Errorf("gone, deleted in the last 30s, is answered from the cache")
	}
	if err := p.Admit(ctx, databaseAttrs(admission.Create, "gone")); !apierrors.IsForbidden(err) {
		t.Errorf("create in gone (read from storage: Terminating): want 403, got %v", err)
	}
	p.cache.mu.Lock()
	p.cache.forceLive = nil // as 30s later
	p.cache.mu.Unlock()
	if phase, ok := p.cache.lookup("gone", time.Now()); !ok || phase != corev1.NamespaceTerminating {
		t.Errorf("gone in the cache: %q %v, want Terminating", phase, ok)
	}
	if err := p.Admit(ctx, databaseAttrs(admission.Create, "gone")); !apierrors.IsForbidden(err) {
		t.Errorf("create in gone (cached Terminating): want 403, got %v", err)
	}
	if err := p.Admit(ctx, databaseAttrs(admission.Create, "team-a")); err != nil {
		t.Errorf("create in team-a (cached Active): %v", err)
	}
	if _, err := nsREST.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fresh"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Admit(ctx, databaseAttrs(admission.Create, "fresh")); err != nil {
		t.Errorf("create in a namespace just created: %v", err)
	}
	if _, _, err := nsREST.Delete(ctx, "team-a", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.cache.lookup("team-a", time.Now()); ok {
		t.Errorf("team-a is answered from the cache right after its DELETE")
	}
	if err := p.Admit(ctx, databaseAttrs(admission.Create, "team-a")); !apierrors.IsForbidden(err) {
		t.Errorf("create right after team-a's DELETE: want 403, got %v", err)
	}
}

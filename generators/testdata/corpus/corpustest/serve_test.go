package corpustest_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	shopinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop/install"
	robotsinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/api/v1/install"
	craftsinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/versions/apis/crafts/v1/install"
	"github.com/apigen-dev/apigen/runtime/app"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// serveKind is one kind of a corpus group as a client sees it.
type serveKind struct {
	kind, resource string
	namespaced     bool
	// spec is the spec to create, valid in every served version; defaults maps the
	// dotted path of each field the server must default to its value as decoded JSON.
	spec     map[string]any
	defaults map[string]any
	// versionDefaults adds defaults of fields only some versions have, by version.
	versionDefaults map[string]map[string]any
	// status, when set, is written through the status subresource.
	status map[string]any
	// shortNames and categories are what discovery must list; columns the names of the Table
	// columns the server prints (Name and Age when the kind has no printer columns).
	shortNames, categories, columns []string
}

// serveGroup is one corpus group served in-process.
type serveGroup struct {
	tree     string
	group    string
	versions []string
	build    app.GroupBuilder
	kinds    []serveKind
	// across, when set, checks what the group serves across versions.
	across func(t *testing.T, dyn dynamic.Interface)
	// handValidation, when set, checks the group's hand-written validation package.
	handValidation func(t *testing.T, dyn dynamic.Interface)
}

var serveGroups = []serveGroup{
	{
		tree: "codegen", group: "shop.example.com", versions: []string{"v1", "v1beta1"}, build: shopinstall.NewAPIGroupInfo,
		kinds: []serveKind{{
			kind: "Store", resource: "stores", namespaced: true,
			spec: map[string]any{"capacity": "2Gi", "manager": map[string]any{"name": "Ada"},
				"shelves": []any{map[string]any{"name": "front", "tags": []any{"new"}}}, "prices": map[string]any{"tea": int64(250)}},
			// SetDefaults_Store and SetDefaults_Shelf, hand-written; spec.size is v1beta1's replicas.
			defaults:        map[string]any{"spec.tier": "Basic", "spec.shelves.0.slots": int64(10)},
			versionDefaults: map[string]map[string]any{"v1": {"spec.replicas": int64(1)}, "v1beta1": {"spec.size": int64(1)}},
			status:          map[string]any{"phase": "Open", "openedAt": "2026-01-02T03:04:05Z", "observedGeneration": int64(1)},
			columns:         []string{"Name", "Age"},
		}, {
			kind: "Region", resource: "regions",
			spec: map[string]any{"zones": []any{"a", "b"}, "quotas": map[string]any{"cpu": "64"},
				"launchedAt": "2025-06-01T00:00:00Z", "headquarters": map[string]any{"name": "HQ", "email": "hq@example.com"}},
			defaults: map[string]any{"spec.default": false}, // +default=false
			columns:  []string{"Name", "Age"},
		}},
		across: storeAcrossVersions, handValidation: shopHandValidation,
	},
	{
		tree: "kubebuilder", group: "robots.example.com", versions: []string{"v1"}, build: robotsinstall.NewAPIGroupInfo,
		kinds: []serveKind{{
			kind: "Robot", resource: "robots", namespaced: true,
			spec: map[string]any{"model": "Scout", "tools": []any{map[string]any{"slot": int64(0), "name": "gripper"}},
				"settings": map[string]any{"speed": "fast"}, "maintenance": map[string]any{"start": "2026-03-01T10:00:00Z"}},
			defaults:   map[string]any{"spec.firmware": "1.0.0", "spec.arms": int64(2), "spec.payload": "5Gi", "spec.maintenance.hours": int64(4)},
			status:     map[string]any{"ready": true, "lastSeen": "2026-01-02T03:04:05Z"},
			shortNames: []string{"rb"}, categories: []string{"all"},
			columns: []string{"Name", "Model", "Arms", "Ready", "Firmware", "Age"},
		}, {
			kind: "Factory", resource: "factories",
			spec: map[string]any{"location": "Leeds", "powerBudget": "3M",
				"lines": map[string]any{"a": map[string]any{"models": []any{"Scout"}, "ratePerHour": int64(12)}}},
			defaults:   map[string]any{"spec.shifts": int64(1)},
			shortNames: []string{"fac"},
			columns:    []string{"Name", "Location", "Shifts", "Age"}, // runtime/tableconvertor always ends with Age
		}},
	},
	{
		// Two versions, no internal package: Boat is held and stored in v1, Dock in v1beta1.
		tree: "versions", group: "crafts.example.com", versions: []string{"v1", "v1beta1"}, build: craftsinstall.NewAPIGroupInfo,
		kinds: []serveKind{{
			kind: "Boat", resource: "boats", namespaced: true,
			spec: map[string]any{"hull": "Cat", "alternates": []any{"Mono"}, "labels": map[string]any{"fleet": "red"},
				"berths": map[string]any{"leith": map[string]any{"pier": "west", "slot": int64(3)}},
				"sails":  []any{map[string]any{"name": "jib", "area": "12"}}, "engine": map[string]any{"power": int64(40), "fuel": "diesel"}},
			defaults: map[string]any{"spec.crew": int64(1)},
			status:   map[string]any{"afloat": true},
			columns:  []string{"Name", "Hull", "Age"},
		}, {
			kind: "Dock", resource: "docks",
			spec:     map[string]any{"hulls": []any{"Mono", "Tri"}},
			defaults: map[string]any{"spec.capacity": int64(4)},
			columns:  []string{"Name", "Age"},
		}},
	},
}

// startCorpusServer serves g on a real etcd and real HTTP on a free loopback port, stopped in
// t.Cleanup, and returns the client configuration for it.
func startCorpusServer(t *testing.T, g serveGroup) *rest.Config {
	t.Helper()
	client, _ := etcdtest.Run(t)
	info, err := g.build(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatalf("cannot build the %s group: %v", g.group, err)
	}
	srv := server.New(server.Config{Name: "corpus-apiserver"}, nil)
	if err := srv.InstallAPIGroups(info); err != nil {
		t.Fatalf("cannot install the %s group: %v", g.group, err)
	}
	prepared, err := srv.PrepareRun()
	if err != nil {
		t.Fatalf("cannot prepare the server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- prepared.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case <-prepared.Ready():
	case err := <-done:
		t.Fatalf("server stopped before it was ready: %v", err)
	}
	return &rest.Config{Host: "http://" + ln.Addr().String()}
}

// TestCorpusServes serves each corpus group in-process and drives every kind in every served
// version through create, get, list, update, status update and delete with client-go's
// dynamic client, checking the generated defaults on the way.
func TestCorpusServes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and an API server per corpus tree")
	}
	for _, g := range serveGroups {
		t.Run(g.tree, func(t *testing.T) {
			cfg := startCorpusServer(t, g)
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("discovery", func(t *testing.T) { checkDiscovery(t, cfg, g) })
			for _, v := range g.versions {
				for _, k := range g.kinds {
					t.Run(v+"/"+k.kind, func(t *testing.T) { exerciseKind(t, cfg, dyn, g.group, v, k) })
				}
			}
			if g.across != nil {
				t.Run("across-versions", func(t *testing.T) { g.across(t, dyn) })
			}
			if g.handValidation != nil {
				t.Run("hand-written-validation", func(t *testing.T) { g.handValidation(t, dyn) })
			}
		})
	}
}

// exerciseKind runs the CRUD cycle on one kind in one version.
func exerciseKind(t *testing.T, cfg *rest.Config, dyn dynamic.Interface, group, version string, k serveKind) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gvr := schema.GroupVersionResource{Group: group, Version: version, Resource: k.resource}
	var res dynamic.ResourceInterface = dyn.Resource(gvr)
	if k.namespaced {
		res = dyn.Resource(gvr).Namespace("default")
	}
	name := strings.ToLower(k.kind) + "-" + version
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + version, "kind": k.kind,
		"metadata": map[string]any{"name": name}, "spec": runtime.DeepCopyJSONValue(k.spec),
	}}
	created, err := res.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, defaults := range []map[string]any{k.defaults, k.versionDefaults[version]} {
		for path, want := range defaults {
			if got := lookup(created.Object, path); got != want {
				t.Errorf("created %s = %#v, want the default %#v", path, got, want)
			}
		}
	}
	got, err := res.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if diff := cmp.Diff(created.Object, got.Object); diff != "" {
		t.Errorf("get differs from create (-create +get):\n%s", diff)
	}
	list, err := res.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != name {
		t.Fatalf("list = %v, %v; want the one %s", list, err, name)
	}
	got.SetLabels(map[string]string{"corpus": "updated"})
	updated, err := res.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.GetLabels()["corpus"] != "updated" || updated.GetResourceVersion() == got.GetResourceVersion() {
		t.Errorf("update returned labels %v, resourceVersion %s (was %s)", updated.GetLabels(), updated.GetResourceVersion(), got.GetResourceVersion())
	}
	if k.status != nil {
		exerciseStatus(ctx, t, res, updated, k.status)
	}
	checkTable(ctx, t, cfg, gvr, k)
	if err := res.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := res.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete = %v, want NotFound", err)
	}
}

// exerciseStatus writes status through the status subresource and reads it back.
func exerciseStatus(ctx context.Context, t *testing.T, res dynamic.ResourceInterface, obj *unstructured.Unstructured, status map[string]any) {
	t.Helper()
	obj = obj.DeepCopy()
	obj.Object["status"] = runtime.DeepCopyJSONValue(status)
	if _, err := res.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status: %v", err)
	}
	got, err := res.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get after status update: %v", err)
	}
	if diff := cmp.Diff(status, got.Object["status"]); diff != "" {
		t.Errorf("status after update (-want +got):\n%s", diff)
	}
}

// lookup returns the value at the dotted path in obj, where a numeric element indexes a list,
// or nil when there is none.
func lookup(obj map[string]any, path string) any {
	var cur any = obj
	for _, el := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[el]
		case []any:
			i, err := strconv.Atoi(el)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// storeAcrossVersions creates a Store in v1beta1 and reads it in v1: the hand-written
// Convert_ functions map v1beta1's spec.size to v1's spec.replicas, both ways.
func storeAcrossVersions(t *testing.T, dyn dynamic.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := func(v string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: "shop.example.com", Version: v, Resource: "stores"}).Namespace("default")
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "shop.example.com/v1beta1", "kind": "Store",
		"metadata": map[string]any{"name": "converted"}, "spec": map[string]any{"size": int64(3)},
	}}
	if _, err := res("v1beta1").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create in v1beta1: %v", err)
	}
	v1, err := res("v1").Get(ctx, "converted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get in v1: %v", err)
	}
	if got := lookup(v1.Object, "spec.replicas"); got != int64(3) {
		t.Errorf("v1 spec.replicas = %#v, want 3 (v1beta1 spec.size)", got)
	}
	if err := unstructured.SetNestedField(v1.Object, int64(5), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if _, err := res("v1").Update(ctx, v1, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update in v1: %v", err)
	}
	beta, err := res("v1beta1").Get(ctx, "converted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get in v1beta1: %v", err)
	}
	if got := lookup(beta.Object, "spec.size"); got != int64(5) {
		t.Errorf("v1beta1 spec.size = %#v, want 5 (v1 spec.replicas)", got)
	}
	if _, found := beta.Object["spec"].(map[string]any)["replicas"]; found {
		t.Errorf("v1beta1 Store has v1's spec.replicas: %v", beta.Object["spec"])
	}
}

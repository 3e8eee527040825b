package scaffold_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// gatewayAPI is the Gateway API release TestGatewayAPIServedUnchanged serves the standard
// channel of; gatewayGroup is its API group.
const (
	gatewayAPI   = "sigs.k8s.io/gateway-api@v1.6.3"
	gatewayGroup = "gateway.networking.k8s.io"
)

// TestGatewayAPIServedUnchanged serves Gateway API's standard channel from its own Go types,
// as a user bringing existing types would: apigen init, then apis/v1 and apis/v1beta1 of
// sigs.k8s.io/gateway-api copied into apis/gateway/ (their hand-written .go files, not
// zz_generated or tests) with only their import paths rewritten, cmd/<server>/groups.go
// naming the group's install package, apigen generate, go build ./..., one server. Against
// the CRDs of config/crd/standard it then checks that discovery serves exactly the kinds,
// versions, scopes and status subresources they serve; it applies every YAML file of
// examples/standard (recursively; the 0-namespaces.yaml files first) with kubectl's
// server-side apply, reads every object back through the API (each applied field as written)
// and from etcd (stored in its CRD's storage version: ReferenceGrant in v1beta1, the others
// in v1), reads every object through each served version of its kind (same spec), creates a
// Gateway through v1beta1 (stored in v1 with v1's defaults), and runs kubectl explain
// httproute.spec.rules. Documents of kinds outside the standard channel would be skipped and
// listed; v1.6.3's examples have none. The phases' seconds are logged.
func TestGatewayAPIServedUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Fatalf("kubectl is required at %s: %v", kubectlPath, err)
	}
	t.Parallel()
	start := time.Now()
	var timings []string
	phase := func(name string, f func()) {
		began := time.Now()
		f()
		timings = append(timings, fmt.Sprintf("%s %.1fs", name, time.Since(began).Seconds()))
	}
	defer func() { t.Logf("seconds: %s; total %.1fs", strings.Join(timings, ", "), time.Since(start).Seconds()) }()
	const long = 10 * time.Minute
	gw := moduleDir(t, gatewayAPI)
	channel := standardChannel(t, gw)
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "gateway")
	bin := filepath.Join(repo, "bin", "gateway-apiserver")
	var apigen string
	phase("init and port", func() {
		apigen = buildApigen(t, tmp)
		runIn(t, tmp, long, apigen, "init", "example.com/gateway")
		portGatewayTypes(t, gw, repo, "example.com/gateway/apis/gateway")
	})
	phase("generate", func() {
		out := runIn(t, repo, long, apigen, "generate", "./...")
		t.Logf("apigen generate:\n%s", out)
	})
	phase("build", func() {
		// every package, and the one command into bin/ (a go build ./... before it linked
		// the command only to throw it away)
		runIn(t, repo, long, "go", "build", "-o", filepath.Dir(bin)+"/", "./...")
	})
	var srv *server
	phase("start", func() { srv = startServer(t, bin, filepath.Join(tmp, "data")) })
	c := newGatewayClients(t, srv)
	phase("discovery", func() { checkDiscovery(t, c.disc, channel) })
	phase("differential", func() { runTypedDifferential(t, srv) })
	phase("apply examples", func() { applyExamples(t, srv, c, gw, channel) })
	phase("versions", func() { checkVersions(t, c, channel) })
	phase("explain", func() {
		out := srv.kubectl(t, "explain", "httproute.spec.rules")
		for _, want := range []string{"KIND:       HTTPRoute", "VERSION:    v1", "FIELD: rules <[]HTTPRouteRule>", "backendRefs\t<[]HTTPBackendRef>", "matches\t<[]HTTPRouteMatch>"} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl explain httproute.spec.rules lacks %q:\n%s", want, out)
			}
		}
	})
}

// runTypedDifferential runs internal/crddiff's TestGatewayTypedDifferential against srv (its
// kubeconfig in crddiff's gatewayKubeconfigEnv): every served kind and version compared with
// kube-apiserver's CRD handling of controller-gen's CRD of the same types, on the release's
// examples and 1,000 generated objects per kind. It fails t with the test's output when that
// test fails or did not run, and logs each kind's counts and the divergence rows met.
func runTypedDifferential(t *testing.T, srv *server) {
	t.Helper()
	out, err := runEnv(checkout(t), []string{crddiffKubeconfigEnv + "=" + srv.kubeconfig}, 10*time.Minute,
		"go", "test", "-count=1", "-v", "-run", "^TestGatewayTypedDifferential$", "./internal/crddiff")
	if err != nil || !strings.Contains(out, "--- PASS: TestGatewayTypedDifferential") {
		t.Fatalf("internal/crddiff's TestGatewayTypedDifferential against the Gateway API server: %v\n%s", err, out)
	}
	var summary []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "inputs came out the same") || strings.Contains(line, "inputs differ as") {
			summary = append(summary, strings.TrimSpace(line))
		}
	}
	t.Logf("the typed differential:\n%s", strings.Join(summary, "\n"))
}

// crddiffKubeconfigEnv is internal/crddiff's gatewayKubeconfigEnv (a test-only identifier of
// another package, so repeated here).
const crddiffKubeconfigEnv = "CRDDIFF_GATEWAY_KUBECONFIG"

// gatewayClients are the clients the test reads the server and its etcd with.
type gatewayClients struct {
	disc   discovery.DiscoveryInterface
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	etcd   *clientv3.Client
}

// newGatewayClients connects to srv's API (its kubeconfig) and to its embedded etcd (the
// endpoint and client certificate its readiness line names).
func newGatewayClients(t *testing.T, srv *server) *gatewayClients {
	cfg, err := clientcmd.BuildConfigFromFlags("", srv.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &gatewayClients{disc: disc, dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(cachedDiscovery{disc}), etcd: etcdClient(t, srv)}
}

// checkDiscovery checks that the server serves exactly the standard channel's group
// versions, resources (kind, scope, status subresource) per served version.
func checkDiscovery(t *testing.T, disc discovery.DiscoveryInterface, channel map[string]*crd) {
	want, got := map[string]bool{}, map[string]bool{}
	for _, c := range channel {
		for _, v := range c.Spec.Versions {
			if !v.Served {
				continue
			}
			want[fmt.Sprintf("%s %s %s namespaced=%t", v.Name, c.Spec.Names.Plural, c.Spec.Names.Kind, c.Spec.Scope == "Namespaced")] = true
			if v.Subresources.Status != nil {
				want[v.Name+" "+c.Spec.Names.Plural+"/status"] = true
			}
		}
	}
	groups, err := disc.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		if g.Name != gatewayGroup {
			continue
		}
		for _, v := range g.Versions {
			list, err := disc.ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range list.APIResources {
				if strings.Contains(r.Name, "/") {
					if strings.HasSuffix(r.Name, "/status") {
						got[v.Version+" "+r.Name] = true
					}
					continue
				}
				got[fmt.Sprintf("%s %s %s namespaced=%t", v.Version, r.Name, r.Kind, r.Namespaced)] = true
			}
		}
	}
	if diff := setDiff(want, got); diff != "" {
		t.Errorf("discovery of %s against config/crd/standard (-CRDs +server):\n%s", gatewayGroup, diff)
	}
}

// applyExamples applies every example file with kubectl apply --server-side and checks each
// object it holds: read back through the API with every applied field as written, and stored
// in etcd in its CRD's storage version.
func applyExamples(t *testing.T, srv *server, c *gatewayClients, gw string, channel map[string]*crd) {
	files := exampleFiles(t, gw)
	var skipped []string
	objects := 0
	for _, f := range files {
		rel, _ := filepath.Rel(gw, f)
		docs := readDocuments(t, f)
		var keep []map[string]any
		for _, d := range docs {
			u := unstructured.Unstructured{Object: d}
			if gv, _ := schema.ParseGroupVersion(u.GetAPIVersion()); gv.Group == gatewayGroup && channel[u.GetKind()] == nil {
				skipped = append(skipped, fmt.Sprintf("%s: %s %s (kind not in the standard channel: config/crd/standard has no CRD for it)", rel, u.GetKind(), u.GetName()))
				continue
			}
			keep = append(keep, d)
		}
		path := f
		if len(keep) < len(docs) {
			path = writeDocuments(t, keep)
		}
		if len(keep) > 0 {
			srv.kubectl(t, "apply", "--server-side", "--force-conflicts", "--field-manager=gateway-examples", "-f", path)
		}
		for _, d := range keep {
			checkStored(t, c, rel, d, channel)
			objects++
		}
	}
	t.Logf("applied %d example files (%d objects); skipped %d documents: %v", len(files), objects, len(skipped), skipped)
	if objects == 0 {
		t.Errorf("no example object applied from %s", gw)
	}
}

// checkStored reads the object doc describes (applied from file) back through the API, where
// every field doc sets must be as written, and, for a Gateway API kind, from etcd, where it
// must be stored in its CRD's storage version.
func checkStored(t *testing.T, c *gatewayClients, file string, doc map[string]any, channel map[string]*crd) {
	t.Helper()
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: doc}
	gvk := u.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Errorf("%s: %s %s: %v", file, gvk.Kind, u.GetName(), err)
		return
	}
	ns := ""
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if ns = u.GetNamespace(); ns == "" {
			ns = "default"
		}
	}
	what := fmt.Sprintf("%s: %s %s", file, gvk.Kind, path.Join(ns, u.GetName()))
	got, err := c.dyn.Resource(m.Resource).Namespace(ns).Get(ctx, u.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Errorf("%s: get: %v", what, err)
		return
	}
	for _, d := range subset(normalize(t, doc), normalize(t, got.Object), "") {
		t.Errorf("%s read back: %s", what, d)
	}
	if gvk.Group != gatewayGroup {
		return
	}
	stored := storedObject(t, c, m.Resource.Resource, ns, u.GetName())
	if want := gatewayGroup + "/" + channel[gvk.Kind].storageVersion(); stored == nil || stored.GetAPIVersion() != want || stored.GetUID() != got.GetUID() {
		t.Errorf("%s: stored in etcd as %v, want apiVersion %s and uid %s", what, stored, want, got.GetUID())
	}
}

// storedObject returns the object etcd holds for resource ns/name of the Gateway API group,
// or nil when it holds none.
func storedObject(t *testing.T, c *gatewayClients, resource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	key := path.Join("/registry", gatewayGroup, resource, ns, name)
	resp, err := c.etcd.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("etcd get %s: %v", key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(resp.Kvs[0].Value); err != nil {
		t.Fatalf("etcd %s: %v", key, err)
	}
	return u
}

// checkVersions reads every object of every kind through each version its CRD serves: the
// spec is the same in each (the versions have one schema, as their CRD's None conversion).
// It then creates a Gateway through v1beta1, which is stored in v1 with v1's defaults.
func checkVersions(t *testing.T, c *gatewayClients, channel map[string]*crd) {
	ctx := context.Background()
	for _, cr := range channel {
		var specs map[string]string
		for _, v := range cr.Spec.Versions {
			if !v.Served {
				continue
			}
			gvr := schema.GroupVersionResource{Group: gatewayGroup, Version: v.Name, Resource: cr.Spec.Names.Plural}
			list, err := c.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Errorf("list %s: %v", gvr, err)
				continue
			}
			got := map[string]string{}
			for _, item := range list.Items {
				spec, _ := json.Marshal(item.Object["spec"])
				got[item.GetNamespace()+"/"+item.GetName()] = string(spec)
			}
			if specs == nil {
				specs = got
				continue
			}
			if diff := mapDiff(specs, got); diff != "" {
				t.Errorf("%s: specs through %s differ from the first served version's:\n%s", cr.Spec.Names.Plural, v.Name, diff)
			}
		}
	}
	checkBetaCreate(t, c, channel)
}

// checkBetaCreate creates a Gateway through v1beta1: it is answered in v1beta1 and stored in
// v1 (its storage version), with the defaults of v1beta1's schema, which are v1's, applied
// before it is stored.
func checkBetaCreate(t *testing.T, c *gatewayClients, channel map[string]*crd) {
	gvr := schema.GroupVersionResource{Group: gatewayGroup, Version: "v1beta1", Resource: "gateways"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gatewayGroup + "/v1beta1", "kind": "Gateway",
		"metadata": map[string]any{"name": "through-v1beta1"},
		"spec": map[string]any{"gatewayClassName": "example", "listeners": []any{
			map[string]any{"name": "http", "protocol": "HTTP", "port": int64(80)},
		}},
	}}
	created, err := c.dyn.Resource(gvr).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a Gateway through v1beta1: %v", err)
	}
	stored := storedObject(t, c, "gateways", "default", "through-v1beta1")
	for _, o := range []struct {
		what       string
		obj        *unstructured.Unstructured
		apiVersion string
	}{{"the response", created, gatewayGroup + "/v1beta1"}, {"etcd", stored, gatewayGroup + "/" + channel["Gateway"].storageVersion()}} {
		if o.obj == nil {
			t.Errorf("%s has no Gateway created through v1beta1", o.what)
			continue
		}
		listeners, _, _ := unstructured.NestedSlice(o.obj.Object, "spec", "listeners")
		var from any
		if len(listeners) == 1 {
			from, _, _ = unstructured.NestedFieldNoCopy(listeners[0].(map[string]any), "allowedRoutes", "namespaces", "from")
		}
		if o.obj.GetAPIVersion() != o.apiVersion || from != "Same" {
			t.Errorf("Gateway created through v1beta1, in %s: apiVersion %s, listeners[0].allowedRoutes.namespaces.from %v; want %s and the default Same",
				o.what, o.obj.GetAPIVersion(), from, o.apiVersion)
		}
	}
}

// cachedDiscovery makes a discovery client a discovery.CachedDiscoveryInterface that never
// caches, for restmapper.
type cachedDiscovery struct{ discovery.DiscoveryInterface }

// Fresh reports true: nothing is cached.
func (cachedDiscovery) Fresh() bool { return true }

// Invalidate does nothing.
func (cachedDiscovery) Invalidate() {}

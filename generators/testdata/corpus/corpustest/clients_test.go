package corpustest_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	fleetv1 "github.com/apigen-dev/apigen/generators/testdata/corpus/clients/apis/fleet/v1"
	fleetinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/clients/apis/fleet/v1/install"
	"github.com/apigen-dev/apigen/generators/testdata/corpus/clients/pkg/generated/clientset/versioned"
	"github.com/apigen-dev/apigen/generators/testdata/corpus/clients/pkg/generated/informers/externalversions"
)

// fleetGroup is the clients tree's group, served in-process.
var fleetGroup = serveGroup{tree: "clients", group: "fleet.example.com", versions: []string{"v1"}, build: fleetinstall.NewAPIGroupInfo}

// TestClientTagsLimitServedVerbs serves the clients tree and checks that each kind's
// +genclient tags limit what the server serves as they limit its client: discovery lists the
// verbs the client has (readonly Port: get, list, watch; Signal: its onlyVerbs; Crew: no
// deletecollection and no status subresource; Ledger: none), a verb the tags leave out answers
// 405 MethodNotAllowed, and Index is served at client-gen's plural, indexes.
func TestClientTagsLimitServedVerbs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and an API server")
	}
	cfg := startCorpusServer(t, fleetGroup)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := dc.ServerResourcesForGroupVersion("fleet.example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range list.APIResources {
		got[r.Name] = r.Verbs
	}
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	want := map[string][]string{
		"ships": all, "ships/status": {"get", "patch", "update"}, "ships/scale": {"get", "patch", "update"},
		"ports":   {"get", "list", "watch"},
		"crews":   {"create", "delete", "get", "list", "patch", "update", "watch"},
		"signals": {"create", "delete", "get", "list", "watch"},
		"ledgers": {},
		"indexes": all,
	}
	for name, verbs := range want {
		if g, ok := got[name]; !ok || !slices.Equal(g, verbs) {
			t.Errorf("discovery lists %s with verbs %v (listed: %v), want %v", name, g, ok, verbs)
		}
	}
	if v, ok := got["crews/status"]; ok {
		t.Errorf("discovery lists crews/status (%v): +genclient:noStatus serves none", v)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gvr := func(r string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "fleet.example.com", Version: "v1", Resource: r}
	}
	obj := func(kind, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "fleet.example.com/v1", "kind": kind, "metadata": map[string]any{"name": name}}}
	}
	if _, err := dyn.Resource(gvr("ports")).Create(ctx, obj("Port", "dover"), metav1.CreateOptions{}); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("create a readonly Port: %v, want 405 MethodNotAllowed", err)
	}
	signals := dyn.Resource(gvr("signals")).Namespace("default")
	sig, err := signals.Create(ctx, obj("Signal", "ahoy"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a Signal: %v", err)
	}
	if _, err := signals.Update(ctx, sig, metav1.UpdateOptions{}); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("update a Signal (onlyVerbs without update): %v, want 405 MethodNotAllowed", err)
	}
	if _, err := signals.Patch(ctx, "ahoy", types.MergePatchType, []byte(`{"text":"x"}`), metav1.PatchOptions{}); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("patch a Signal (onlyVerbs without patch): %v, want 405 MethodNotAllowed", err)
	}
	if err := dyn.Resource(gvr("crews")).Namespace("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("deletecollection of Crews (skipVerbs=deleteCollection): %v, want 405 MethodNotAllowed", err)
	}
	if _, err := dyn.Resource(gvr("ledgers")).Namespace("default").Get(ctx, "book", metav1.GetOptions{}); !isRouteMissing(err) {
		t.Errorf("get a Ledger (+genclient:noVerbs): %v, want the 404 or 405 of a path without a GET route", err)
	}
	if _, err := dyn.Resource(gvr("indices")).Namespace("default").List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list indices: %v, want 404: Index is served at indexes", err)
	}
}

// isRouteMissing reports whether err is the 404 or 405 of a path the server has no route for,
// not the 404 of a missing object (which names the object).
func isRouteMissing(err error) bool {
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return false
	}
	s := status.Status()
	named := s.Details != nil && s.Details.Name != ""
	return s.Code == http.StatusMethodNotAllowed || s.Code == http.StatusNotFound && !named
}

// TestGeneratedClientsAgainstServer drives the clients tree's server with its generated typed
// clientset, informer and lister: Ship's create, get, status update, GetScale and UpdateScale
// (+genclient:method on the scale subresource), list and delete; Index at indexes; Port's
// readonly client reading; and a typed informer that syncs and lists through its lister.
func TestGeneratedClientsAgainstServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and an API server")
	}
	cfg := startCorpusServer(t, fleetGroup)
	client := versioned.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ships := client.FleetV1().Ships("default")
	ship, err := ships.Create(ctx, &fleetv1.Ship{ObjectMeta: metav1.ObjectMeta{Name: "beagle"},
		Spec: fleetv1.ShipSpec{Crew: ptr.To[int32](3), Holds: []fleetv1.Hold{{Name: "fore", Tons: 20}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	ship.Status.Crew, ship.Status.Selector = 3, "ship=beagle"
	if ship, err = ships.UpdateStatus(ctx, ship, metav1.UpdateOptions{}); err != nil || ship.Status.Crew != 3 {
		t.Fatalf("update status: %+v, %v", ship, err)
	}
	scale, err := ships.GetScale(ctx, "beagle", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 3 || scale.Status.Replicas != 3 || scale.Status.Selector != "ship=beagle" {
		t.Fatalf("GetScale = %+v, %v; want 3 replicas, 3 ready, selector ship=beagle", scale, err)
	}
	scale.Spec.Replicas = 5
	if _, err := ships.UpdateScale(ctx, "beagle", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateScale: %v", err)
	}
	if got, err := ships.Get(ctx, "beagle", metav1.GetOptions{}); err != nil || got.Spec.Crew == nil || *got.Spec.Crew != 5 {
		t.Fatalf("after UpdateScale the ship is %+v, %v; want spec.crew 5", got, err)
	}
	var _ *autoscalingv1.Scale = scale // GetScale returns autoscaling/v1 Scale, as +genclient:method's result= says
	if _, err := client.FleetV1().Indexes("default").Create(ctx, &fleetv1.Index{ObjectMeta: metav1.ObjectMeta{Name: "charts"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create an Index at indexes: %v", err)
	}
	if _, err := client.FleetV1().Ports().Get(ctx, "dover", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get a Port: %v, want NotFound", err)
	}

	factory := externalversions.NewSharedInformerFactory(client, 0)
	informer := factory.Fleet().V1().Ships()
	lister := informer.Lister()
	stop := make(chan struct{})
	informer.Informer() // requested before Start
	factory.Start(stop)
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if res := factory.WaitForCacheSyncWithContext(syncCtx); res.Err != nil {
		t.Fatalf("the typed informer did not sync: %v", res.Err)
	}
	listed, err := lister.Ships("default").List(labels.Everything())
	if err != nil || len(listed) != 1 || listed[0].Name != "beagle" {
		t.Errorf("lister lists %v, %v; want beagle", listed, err)
	}
	if err := ships.Delete(ctx, "beagle", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	deadline := time.Now().Add(time.Minute) // a bound for a loaded machine, not a latency target
	for {
		if _, err := lister.Ships("default").Get("beagle"); apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lister still has beagle a minute after its deletion")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !cache.WaitForCacheSync(stop, informer.Informer().HasSynced) {
		t.Error("the informer is no longer synced")
	}
}

// TestDeclarativeValidation serves the clients tree and checks the effect of the
// validation markers of Route: Kubernetes' declarative tags (immutable, update, maxBytes,
// neq, unique, eachVal, eachKey, unionMember and unionDiscriminator) and controller-tools'
// ExactlyOneOf and items:MaxLength, zeroOrOneOfMember, enum and forbidden, each rejecting a request with its 422 field error, and a
// valid Route accepted. Value constraints read as kube-apiserver's for a CRD schema, whichever
// marker family sets them.
func TestDeclarativeValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and an API server")
	}
	cfg := startCorpusServer(t, fleetGroup)
	routes := versioned.NewForConfigOrDie(cfg).FleetV1().Routes("default")
	ctx := context.Background()
	valid := func(name string) *fleetv1.Route {
		return &fleetv1.Route{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: fleetv1.RouteSpec{
			Origin: "Dover", Destination: "Calais", Pilot: ptr.To("Ann"), Harbor: ptr.To("east quay"),
			Waypoints: []string{"WP1", "WP2"}, Stops: map[string]int32{"calais": 2}, Mode: "Sail", Sail: &fleetv1.Plan{Knots: 6}}}
	}
	for _, tc := range []struct {
		name, want string
		edit       func(*fleetv1.RouteSpec)
	}{
		{"maxbytes", "spec.code: Too long: may not be more than 8 bytes", func(s *fleetv1.RouteSpec) { s.Code = "ÅÅÅÅÅ" }},
		{"neq", `spec.destination: Invalid value: "nowhere": must not be equal to "nowhere"`, func(s *fleetv1.RouteSpec) { s.Destination = "nowhere" }},
		{"unique", `spec.waypoints[1]: Duplicate value: "WP1"`, func(s *fleetv1.RouteSpec) { s.Waypoints = []string{"WP1", "WP1"} }},
		{"items", "spec.waypoints[0]: Too long: may not be more than 4 bytes", func(s *fleetv1.RouteSpec) { s.Waypoints = []string{"WAYPOINT"} }},
		{"eachval", "spec.stops[calais]: Invalid value: 0: spec.stops[calais] in body should be greater than or equal to 1", func(s *fleetv1.RouteSpec) { s.Stops["calais"] = 0 }},
		{"eachkey", "spec.stops: Too long: may not be more than 6 bytes", func(s *fleetv1.RouteSpec) { s.Stops["rotterdam"] = 1 }},
		{"exactlyoneof", "exactly one of the fields in [harbor anchorage] must be set", func(s *fleetv1.RouteSpec) { s.Anchorage = ptr.To("bay") }},
		{"union", "spec.engine: Invalid value: \"\": may only be specified when `mode` is \"Engine\"", func(s *fleetv1.RouteSpec) { s.Engine = &fleetv1.Plan{} }},
		{"discriminated", "spec.sail: Invalid value: \"\": must be specified when `mode` is \"Sail\"", func(s *fleetv1.RouteSpec) { s.Sail = nil }},
		{"zeroorone", "must specify at most one of: `tug`, `tow`", func(s *fleetv1.RouteSpec) { s.Tug, s.Tow = &fleetv1.Plan{}, &fleetv1.Plan{} }},
		{"enum", `spec.weather: Unsupported value: "Hurricane": supported values: "Fair", "Storm"`, func(s *fleetv1.RouteSpec) { s.Weather = "Hurricane" }},
		{"forbidden", "spec.legacy: Forbidden", func(s *fleetv1.RouteSpec) { s.Legacy = "old" }},
	} {
		r := valid("bad-" + tc.name)
		tc.edit(&r.Spec)
		_, err := routes.Create(ctx, r, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: create = %v, want 422 Invalid containing %q", tc.name, err, tc.want)
		}
	}
	r, err := routes.Create(ctx, valid("ok"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a valid Route: %v", err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(*fleetv1.RouteSpec)
	}{
		{"immutable", "spec.origin: Invalid value: null: field is immutable", func(s *fleetv1.RouteSpec) { s.Origin = "Ramsgate" }},
		{"update NoUnset", "spec.pilot: Invalid value: null: field cannot be cleared once set", func(s *fleetv1.RouteSpec) { s.Pilot = nil }},
	} {
		u := r.DeepCopy()
		tc.edit(&u.Spec)
		if _, err := routes.Update(ctx, u, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: update = %v, want 422 Invalid containing %q", tc.name, err, tc.want)
		}
	}
	u := r.DeepCopy()
	u.Spec.Pilot = ptr.To("Bob") // a pilot may change, just not be cleared
	if _, err := routes.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update the pilot: %v", err)
	}
}

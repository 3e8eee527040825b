package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/example-api/apis/db/install"
)

// oracle is apimachinery's managedfields.FieldManager driven directly, as kube-apiserver's
// handlers drive it: one per served version of Database, over models read from the server's
// published OpenAPI v3 documents, Database's reset fields (status), and the example's scheme.
type oracle struct {
	scheme   *runtime.Scheme
	managers map[string]*managedfields.FieldManager
}

// newOracle builds the oracle from the server's /openapi/v3 documents of db.example.com.
func newOracle(t *testing.T, s *apiServer) *oracle {
	t.Helper()
	scheme := runtime.NewScheme()
	install.Install(scheme)
	models := map[string]*spec.Schema{}
	for _, v := range []string{"v1", "v1alpha1"} {
		var doc spec3.OpenAPI
		if err := json.Unmarshal([]byte(s.mustKubectlQuiet(t, "get", "--raw", "/openapi/v3/apis/db.example.com/"+v)), &doc); err != nil {
			t.Fatal(err)
		}
		for name, m := range doc.Components.Schemas {
			models[name] = m
		}
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		t.Fatal(err)
	}
	reset := map[fieldpath.APIVersion]*fieldpath.Set{
		"db.example.com/v1":       fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
		"db.example.com/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
	o := &oracle{scheme: scheme, managers: map[string]*managedfields.FieldManager{}}
	for _, v := range []string{"v1", "v1alpha1"} {
		fm, err := managedfields.NewDefaultFieldManager(tc, runtime.UnsafeObjectConvertor(scheme), scheme, scheme,
			schema.GroupVersionKind{Group: "db.example.com", Version: v, Kind: "Database"}, db.SchemeGroupVersion, "",
			fieldpath.NewExcludeFilterSetMap(reset))
		if err != nil {
			t.Fatal(err)
		}
		o.managers[v] = fm
	}
	return o
}

// internal converts an unstructured Database (any served version) to the internal version,
// defaulted as the server defaults decoded bodies.
func (o *oracle) internal(t *testing.T, u *unstructured.Unstructured) *db.Database {
	t.Helper()
	versioned, err := o.scheme.New(u.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, versioned); err != nil {
		t.Fatal(err)
	}
	o.scheme.Default(versioned)
	out, err := o.scheme.ConvertToVersion(versioned, db.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	return out.(*db.Database)
}

// diffStep is one write of the differential test: the server's answer and the oracle's.
type diffStep struct {
	desc   string
	server *unstructured.Unstructured
	err    error
	want   runtime.Object
	// wantErr is the oracle's error (apply conflicts).
	wantErr error
}

// TestServerSideApplyDifferential drives the server with a seeded random sequence of
// server-side applies (some forced, some through v1alpha1), updates and merge patches by
// several managers on one Database, and checks every answer against the oracle:
// apimachinery's managedfields.FieldManager run directly on the object the server had, with
// the write's manager. The managedFields (timestamps ignored) and the spec and labels must
// be equal, and an apply the oracle refuses with a conflict must be a 409 naming the same
// fields.
func TestServerSideApplyDifferential(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	o := newOracle(t, s)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(uint64(seed), 0))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var live *unstructured.Unstructured // the server's last answer; nil before the first write
	managers := []string{"alice", "bob", "carol"}
	kinds := map[string]int{}
	for i := 0; i < 60; i++ {
		manager := managers[rnd.IntN(len(managers))]
		var step diffStep
		switch op := rnd.IntN(5); {
		case live == nil || op <= 2:
			step = applyStep(ctx, t, s, o, rnd, live, manager)
		case op == 3:
			step = updateStep(ctx, t, s, o, rnd, live, manager)
		default:
			step = mergePatchStep(ctx, t, s, o, rnd, live, manager)
		}
		compareStep(t, i, step)
		if t.Failed() {
			return
		}
		kind, _, _ := strings.Cut(step.desc, " ")
		if step.err != nil {
			kind += " conflicts"
		}
		kinds[kind]++
		if step.err == nil {
			live = step.server
		}
	}
	t.Logf("steps: %v; final managedFields: %v", kinds, entrySets(t, live.GetManagedFields()))
	if kinds["apply"] == 0 || kinds["update"]+kinds["merge"] == 0 {
		t.Errorf("the sequence did not mix applies and updates: %v", kinds)
	}
}

// applyStep applies a random configuration of manager's, as v1 or v1alpha1, forced or not.
func applyStep(ctx context.Context, t *testing.T, s *apiServer, o *oracle, rnd *rand.Rand,
	live *unstructured.Unstructured, manager string) diffStep {
	version := "v1"
	if rnd.IntN(4) == 0 {
		version = "v1alpha1"
	}
	spec := map[string]any{"engine": "postgres"}
	if rnd.IntN(2) == 0 {
		spec["version"] = []string{"16.1", "16.2", "17.0"}[rnd.IntN(3)]
	}
	if rnd.IntN(2) == 0 {
		spec["replicas"] = int64(rnd.IntN(10))
	}
	if rnd.IntN(3) == 0 {
		if version == "v1" {
			spec["storage"] = []string{"10Gi", "20Gi", "50Gi"}[rnd.IntN(3)]
		} else {
			spec["sizeGiB"] = int64(10 * (1 + rnd.IntN(5)))
		}
	}
	if rnd.IntN(2) == 0 {
		params := map[string]any{}
		for _, k := range []string{"max_connections", "shared_buffers", "work_mem"} {
			if rnd.IntN(2) == 0 {
				params[k] = fmt.Sprint(rnd.IntN(500))
			}
		}
		spec["parameters"] = params
	}
	if rnd.IntN(3) == 0 {
		spec["backup"] = map[string]any{"schedule": []string{"0 3 * * *", "0 4 * * *"}[rnd.IntN(2)]}
	}
	meta := map[string]any{"name": "diff"}
	if rnd.IntN(3) == 0 {
		meta["labels"] = map[string]any{manager: fmt.Sprint(rnd.IntN(3))}
	}
	cfg := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "db.example.com/" + version, "kind": "Database",
		"metadata": meta, "spec": spec}}
	if rnd.IntN(6) == 0 {
		cfg.Object["status"] = map[string]any{"phase": "Ready"} // a reset field: owned by no one
	}
	force := rnd.IntN(3) == 0
	step := diffStep{desc: fmt.Sprintf("apply by %s (force %t) of %v", manager, force, cfg.Object)}
	var before runtime.Object = &db.Database{}
	if live != nil {
		before = o.internal(t, live)
	}
	step.want, step.wantErr = o.managers[version].Apply(before, cfg.DeepCopy(), manager, force)
	step.server, step.err = s.dynamic.Resource(schema.GroupVersionResource{Group: "db.example.com", Version: version, Resource: "databases"}).
		Namespace("default").Apply(ctx, "diff", cfg, metav1.ApplyOptions{FieldManager: manager, Force: force})
	return step
}

// updateStep PUTs the live object with a random spec change by manager, in live's version.
func updateStep(ctx context.Context, t *testing.T, s *apiServer, o *oracle, rnd *rand.Rand,
	live *unstructured.Unstructured, manager string) diffStep {
	body := live.DeepCopy()
	version := live.GroupVersionKind().Version
	switch rnd.IntN(3) {
	case 0:
		_ = unstructured.SetNestedField(body.Object, []string{"15.0", "16.2", "17.1"}[rnd.IntN(3)], "spec", "version")
	case 1:
		_ = unstructured.SetNestedField(body.Object, int64(rnd.IntN(10)), "spec", "replicas")
	default:
		_ = unstructured.SetNestedField(body.Object, fmt.Sprint(rnd.IntN(100)), "spec", "parameters", "work_mem")
	}
	step := diffStep{desc: fmt.Sprintf("update by %s to %v", manager, body.Object["spec"])}
	step.want = o.managers[version].UpdateNoErrors(o.internal(t, live), o.internal(t, body), manager)
	step.server, step.err = s.dynamic.Resource(databasesV1.GroupResource().WithVersion(version)).Namespace("default").
		Update(ctx, body, metav1.UpdateOptions{FieldManager: manager})
	return step
}

// mergePatchStep merge-patches a random label and parameter by manager, in live's version.
func mergePatchStep(ctx context.Context, t *testing.T, s *apiServer, o *oracle, rnd *rand.Rand,
	live *unstructured.Unstructured, manager string) diffStep {
	patch := fmt.Sprintf(`{"metadata":{"labels":{"patched-by":%q}},"spec":{"parameters":{"shared_buffers":"%d"}}}`, manager, rnd.IntN(100))
	step := diffStep{desc: fmt.Sprintf("merge patch by %s: %s", manager, patch)}
	current, err := json.Marshal(live.Object)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := jsonpatch.MergePatch(current, []byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(patched, &u.Object); err != nil {
		t.Fatal(err)
	}
	version := live.GroupVersionKind().Version
	step.want = o.managers[version].UpdateNoErrors(o.internal(t, live), o.internal(t, u), manager)
	step.server, step.err = s.dynamic.Resource(databasesV1.GroupResource().WithVersion(version)).Namespace("default").
		Patch(ctx, "diff", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager})
	return step
}

// compareStep checks the server's answer against the oracle's.
func compareStep(t *testing.T, i int, step diffStep) {
	t.Helper()
	if step.wantErr != nil || step.err != nil {
		if !apierrors.IsConflict(step.wantErr) || !apierrors.IsConflict(step.err) ||
			conflictFields(step.wantErr) != conflictFields(step.err) {
			t.Errorf("step %d, %s: server error %v, oracle error %v", i, step.desc, step.err, step.wantErr)
		}
		return
	}
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(step.want)
	if err != nil {
		t.Fatal(err)
	}
	wantObj := &unstructured.Unstructured{Object: want}
	if diff := cmp.Diff(entrySets(t, wantObj.GetManagedFields()), entrySets(t, step.server.GetManagedFields())); diff != "" {
		t.Errorf("step %d, %s: managedFields (-oracle +server):\n%s", i, step.desc, diff)
	}
	// The oracle's object is internal; compare it in v1 with the server's object read back in v1.
	if diff := cmp.Diff(wantObj.GetLabels(), step.server.GetLabels()); diff != "" {
		t.Errorf("step %d, %s: labels (-oracle +server):\n%s", i, step.desc, diff)
	}
	wantSpec := specOf(t, step.want)
	if diff := cmp.Diff(wantSpec, specOfUnstructured(t, step.server)); diff != "" {
		t.Errorf("step %d, %s: spec (-oracle +server):\n%s", i, step.desc, diff)
	}
}

// conflictFields returns the sorted fields of a Conflict's causes.
func conflictFields(err error) string {
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Details == nil {
		return ""
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		fields = append(fields, c.Field+" "+c.Message)
	}
	sort.Strings(fields)
	return strings.Join(fields, "; ")
}

// entrySets keys managedFields entries by manager, operation, subresource and apiVersion,
// with their fieldsV1 as JSON values; times are left out.
func entrySets(t *testing.T, entries []metav1.ManagedFieldsEntry) map[string]any {
	t.Helper()
	return fieldSets(t, entries, func(e metav1.ManagedFieldsEntry) string {
		return fmt.Sprintf("%s/%s/%s/%s", e.Manager, e.Operation, e.Subresource, e.APIVersion)
	})
}

// specOf returns the v1 spec of an internal Database as generic JSON.
func specOf(t *testing.T, obj runtime.Object) any {
	t.Helper()
	scheme := runtime.NewScheme()
	install.Install(scheme)
	v1obj, err := scheme.ConvertToVersion(obj, schema.GroupVersion{Group: "db.example.com", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v1obj)
	if err != nil {
		t.Fatal(err)
	}
	return roundTrip(t, u["spec"])
}

// specOfUnstructured returns the spec of an answer in v1 (converting a v1alpha1 answer).
func specOfUnstructured(t *testing.T, u *unstructured.Unstructured) any {
	t.Helper()
	if u.GetAPIVersion() == "db.example.com/v1" {
		return roundTrip(t, u.Object["spec"])
	}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	versioned, err := scheme.New(u.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, versioned); err != nil {
		t.Fatal(err)
	}
	internal, err := scheme.ConvertToVersion(versioned, db.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	return specOf(t, internal)
}

// roundTrip normalises a JSON value (numbers as float64).
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

package roundtriptest

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/randfill"

	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
)

// SeedEnv names the environment variable that fixes the fuzzer's seed (a decimal int64) to
// replay a failure; a failing test logs the seed it ran with.
const SeedEnv = "APIGEN_ROUNDTRIP_SEED"

// DefaultIterations is how many objects Run fills per kind and origin version when
// Group.Iterations is 0, as apitesting/roundtrip's default -fuzz-iters.
const DefaultIterations = 20

// maxDepth bounds how deep the fuzzer nests values (randfill's MaxDepth, 100 by default), so
// that recursive types (a JSON schema's properties of properties) stay small: deeper values
// are left zero.
var maxDepth = 12

// Group is one API group as its generated install package registers it.
type Group struct {
	// Name is the group's name ("db.example.com").
	Name string
	// Install registers the group's types, conversions and defaulters with a scheme: the
	// install package's Install.
	Install func(*runtime.Scheme)
	// Kinds are the group's kinds, each with the versions it is converted between.
	Kinds []Kind
	// FuzzerFuncs are the group's own fuzzer functions (its fuzzer package's Funcs, as
	// Kubernetes' pkg/apis/<group>/fuzzer), nil when it has none. They keep filled objects
	// within what every version can represent (a field one version holds in coarser units) and
	// what conversions accept; they are merged after apimachinery's metafuzzer.Funcs and
	// Run's own, so theirs win for the same type.
	FuzzerFuncs fuzzer.FuzzerFuncs
	// FuzzerPackage is the import path failures name as the place for FuzzerFuncs
	// ("<hub>/fuzzer").
	FuzzerPackage string
	// Iterations is how many objects are filled per kind and origin version; 0 means
	// DefaultIterations.
	Iterations int
}

// Kind is one kind of a group and the versions its objects are converted between.
type Kind struct {
	// Name is the kind ("Database"). Its list kind (<Name>List), when the scheme has one, is
	// round-tripped the same way.
	Name string
	// Hub is the version the server holds the kind's objects in and converts every request
	// through: runtime.APIVersionInternal for a group with an internal package, else the
	// kind's hub version.
	Hub string
	// Storage is the version the kind's objects are written to storage in.
	Storage string
	// Versions are the served versions that have the kind, most preferred first, and Storage
	// when it is not served.
	Versions []string
}

// Run round-trips every kind of g, one subtest per kind and origin version
// (<Kind>/<version>): it fills Iterations objects of the kind in the origin version (and, for
// a group with an internal package, in the internal version), and for every version of the
// kind converts each to the hub, into that version, encodes it as that version's JSON with
// the runtime's serializer (the one the server uses), decodes it, converts it back to the hub
// and to the origin version, and compares. Conversions run without defaulting: what is
// checked is that nothing is lost. A difference fails the subtest naming the route and the
// field path of each difference (spec.sizeGiB: 7 -> 0). Fuzzing is seeded randomly, or from
// SeedEnv; a failure logs the seed. Filled values nest at most maxDepth (16) deep, deeper ones
// left zero, so that recursive types (a JSON schema) stay small.
func Run(t *testing.T, g Group) {
	t.Helper()
	seed := rand.Int63()
	if s := os.Getenv(SeedEnv); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a decimal int64", SeedEnv, s)
		}
		seed = n
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("fuzzer seed: %d (rerun with %s=%d)", seed, SeedEnv, seed)
		}
	})
	scheme := runtime.NewScheme()
	g.Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	funcs := []fuzzer.FuzzerFuncs{metafuzzer.Funcs, commonFuncs}
	if g.FuzzerFuncs != nil {
		funcs = append(funcs, g.FuzzerFuncs)
	}
	filler := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(funcs...), rand.NewSource(seed), codecs)
	filler.MaxDepth(maxDepth)
	r := &runner{group: g, scheme: scheme, filler: filler,
		json: jsonserializer.NewSerializer(scheme, scheme, kjson.SerializerOptions{})}
	iterations := g.Iterations
	if iterations <= 0 {
		iterations = DefaultIterations
	}
	if len(g.Kinds) == 0 {
		t.Fatalf("group %s has no kinds to round-trip", g.Name)
	}
	for _, k := range g.Kinds {
		t.Run(k.Name, func(t *testing.T) {
			origins := k.Versions
			if k.Hub == runtime.APIVersionInternal {
				origins = append([]string{runtime.APIVersionInternal}, origins...)
			}
			names := []string{k.Name}
			if scheme.Recognizes(g.version(k.Hub).WithKind(k.Name + "List")) {
				names = append(names, k.Name+"List")
			}
			for _, origin := range origins {
				t.Run(origin, func(t *testing.T) {
					for _, name := range names {
						for i := 0; i < iterations && !t.Failed(); i++ {
							r.fromOrigin(t, k, name, origin)
						}
					}
				})
			}
		})
	}
}

// commonFuncs keep the values of apimachinery types the generated codecs and JSON keep at a
// coarser precision than Go: metav1.Time at whole seconds (RFC 3339), as the
// metafuzzer does for ObjectMeta's timestamps.
func commonFuncs(serializer.CodecFactory) []any {
	return []any{
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
		},
	}
}

// runner holds what one Run's subtests share.
type runner struct {
	group  Group
	scheme *runtime.Scheme
	filler *randfill.Filler
	json   runtime.Serializer
}

// version returns the group version v of the runner's group.
func (g Group) version(v string) schema.GroupVersion {
	return schema.GroupVersion{Group: g.Name, Version: v}
}

// fromOrigin fills one object of kind name in version origin and round-trips it through every
// version of k, failing t at the first difference.
func (r *runner) fromOrigin(t *testing.T, k Kind, name, origin string) {
	t.Helper()
	gvk := r.group.version(origin).WithKind(name)
	in, err := r.scheme.New(gvk)
	if err != nil {
		t.Fatalf("cannot create a %s: %v", gvk, err)
	}
	r.filler.Fill(in)
	clearKind(in)
	original := in.DeepCopyObject()
	route := []string{origin}
	if origin != runtime.APIVersionInternal {
		// The origin version's own JSON first: a field its codec drops is lost before any conversion.
		if in, err = r.jsonTrip(in, gvk); err != nil {
			t.Fatalf("%s: %s: %v", gvk, origin+" JSON", err)
		}
		route = append(route, origin+" JSON")
		if r.lost(t, gvk, route, original, in) {
			return
		}
	}
	hub, err := r.convert(in, k.Hub, name)
	if err != nil {
		t.Fatalf("%s: cannot convert to the hub (%s): %v%s", gvk, k.Hub, err, r.fuzzerHint(false))
	}
	if k.Hub != origin {
		route = append(route, k.Hub)
	}
	for _, v := range k.Versions {
		back, steps, err := r.through(hub, k, name, v)
		if err != nil {
			t.Fatalf("%s: %s: %v%s", gvk, strings.Join(append(route, steps...), " -> "), err, r.fuzzerHint(false))
		}
		steps = append(route, steps...)
		out := back
		if origin != k.Hub {
			if out, err = r.convert(back, origin, name); err != nil {
				t.Fatalf("%s: %s: cannot convert back to %s: %v%s", gvk, strings.Join(steps, " -> "), origin, err, r.fuzzerHint(false))
			}
			steps = append(steps, origin)
		}
		if v == k.Storage {
			steps[len(steps)-1] += " (as read back from storage)"
		}
		if r.lost(t, gvk, steps, original, out) {
			return
		}
	}
}

// through converts hub (of version k.Hub) into version v, round-trips it through v's JSON
// and converts it back to k.Hub, returning the route it took.
func (r *runner) through(hub runtime.Object, k Kind, name, v string) (runtime.Object, []string, error) {
	var steps []string
	obj := hub
	var err error
	if v != k.Hub {
		if obj, err = r.convert(hub, v, name); err != nil {
			return nil, steps, fmt.Errorf("cannot convert to %s: %w", v, err)
		}
		steps = append(steps, v)
	}
	label := v + " JSON"
	if v == k.Storage {
		label = v + " JSON (the storage version)"
	}
	if obj, err = r.jsonTrip(obj, r.group.version(v).WithKind(name)); err != nil {
		return nil, steps, err
	}
	steps = append(steps, label)
	if v != k.Hub {
		if obj, err = r.convert(obj, k.Hub, name); err != nil {
			return nil, steps, fmt.Errorf("cannot convert %s back to %s: %w", v, k.Hub, err)
		}
		steps = append(steps, k.Hub)
	}
	return obj, steps, nil
}

// convert returns obj converted to version v of the kind called name, with the scheme's
// conversion functions (a deep copy when obj already is of that version).
func (r *runner) convert(obj runtime.Object, v, name string) (runtime.Object, error) {
	gvk := r.group.version(v).WithKind(name)
	out, err := r.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if reflect.TypeOf(out) == reflect.TypeOf(obj) {
		return obj.DeepCopyObject(), nil
	}
	if err := r.scheme.Convert(obj.DeepCopyObject(), out, nil); err != nil {
		return nil, err
	}
	clearKind(out)
	return out, nil
}

// jsonTrip encodes obj as gvk's JSON and decodes it into a new object of gvk, without
// defaulting.
func (r *runner) jsonTrip(obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	data, err := runtime.Encode(r.json, obj)
	if err != nil {
		return nil, fmt.Errorf("cannot encode: %w", err)
	}
	into, err := r.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	out, _, err := r.json.Decode(data, &gvk, into)
	if err != nil {
		return nil, fmt.Errorf("cannot decode %s: %w", data, err)
	}
	clearKind(out)
	return out, nil
}

// lost reports whether out differs from in, failing t with the route and the field path of
// each difference.
func (r *runner) lost(t *testing.T, gvk schema.GroupVersionKind, route []string, in, out runtime.Object) bool {
	t.Helper()
	if apiequality.Semantic.DeepEqual(in, out) {
		return false
	}
	var b strings.Builder
	for _, d := range Diff(in, out) {
		fmt.Fprintf(&b, "\n  %s", d)
	}
	t.Errorf("%s changed on its way %s:%s%s", gvk, strings.Join(route, " -> "), b.String(), r.fuzzerHint(true))
	return true
}

// fuzzerHint is the part of a failure that tells where value constraints go: after a
// difference (lost) or a conversion's error.
func (r *runner) fuzzerHint(lost bool) string {
	where := "a fuzzer package beside the group's install package"
	if r.group.FuzzerPackage != "" {
		where = r.group.FuzzerPackage
	}
	if lost {
		return "\n(a conversion that loses a field loses stored data: fix it; if the value cannot occur (a field one " +
			"version holds in coarser units, a range validation enforces), keep the fuzzer within it with Funcs in " + where + ")"
	}
	return "\n(if the conversion rightly rejects the value, keep the fuzzer within what it accepts with Funcs in " + where + ")"
}

// clearKind empties obj's apiVersion and kind, which decoding sets and conversion keeps: the
// comparison is of the object's content.
func clearKind(obj runtime.Object) {
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
}

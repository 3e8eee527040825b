package corpustest_test

import (
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/diff"
	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop"
	shopinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop/install"
	shopv1 "github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop/v1"
	shopv1beta1 "github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop/v1beta1"
	robotsv1 "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/api/v1"
	robotsinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/api/v1/install"
	craftsv1 "github.com/apigen-dev/apigen/generators/testdata/corpus/versions/apis/crafts/v1"
	craftsinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/versions/apis/crafts/v1/install"
	craftsv1beta1 "github.com/apigen-dev/apigen/generators/testdata/corpus/versions/apis/crafts/v1beta1"
)

// corpusGroup is one corpus tree's API group as its generated install package serves it.
type corpusGroup struct {
	tree    string
	install func(*runtime.Scheme)
	// group, versions (most preferred first) and storage version, and the kinds every version
	// serves; stored names the kinds stored in another version than storage, each in its own
	// as a CRD (in a group without an internal package, that version is also the kind's hub).
	group    string
	versions []string
	storage  string
	stored   map[string]string
	kinds    []string
	// fuzzerFuncs keep fuzzed objects within what every version can represent.
	fuzzerFuncs fuzzer.FuzzerFuncs
}

var corpusGroups = []corpusGroup{
	{
		tree: "codegen", install: shopinstall.Install,
		group: "shop.example.com", versions: []string{"v1", "v1beta1"}, storage: "v1",
		kinds: []string{"Region", "Store"}, fuzzerFuncs: shopFuzzerFuncs,
	},
	{
		tree: "kubebuilder", install: robotsinstall.Install,
		group: "robots.example.com", versions: []string{"v1"}, storage: "v1",
		kinds: []string{"Factory", "Robot"}, fuzzerFuncs: robotsFuzzerFuncs,
	},
	{
		tree: "versions", install: craftsinstall.Install,
		group: "crafts.example.com", versions: []string{"v1", "v1beta1"}, storage: "v1", stored: map[string]string{"Dock": "v1beta1"},
		kinds: []string{"Boat", "Dock"}, fuzzerFuncs: craftsFuzzerFuncs,
	},
}

// storageOf is the version kind is stored in.
func (g corpusGroup) storageOf(kind string) string {
	if v, ok := g.stored[kind]; ok {
		return v
	}
	return g.storage
}

func ptrTo[T any](v T) *T { return &v }

// commonFuzzerFuncs keep quantities canonical and non-zero (a zero quantity is "unset" and
// gets defaulted) and times at second precision, as JSON keeps them.
func commonFuzzerFuncs(serializer.CodecFactory) []any {
	return []any{
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(1+c.Int63n(1<<50), resource.BinarySI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
		},
	}
}

// shopFuzzerFuncs set the fields that SetDefaults_Store, SetDefaults_Shelf and +default fill
// on decode, in the hub and both versions, as Kubernetes' per-group fuzzers do.
func shopFuzzerFuncs(codecs serializer.CodecFactory) []any {
	tier := func(c randfill.Continue) string { return []string{"Basic", "Premium"}[c.Intn(2)] }
	return append(commonFuzzerFuncs(codecs),
		func(s *shop.StoreSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas, s.Tier = ptrTo(c.Int31()), shop.Tier(tier(c))
		},
		func(s *shopv1.StoreSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas, s.Tier = ptrTo(c.Int31()), shopv1.Tier(tier(c))
		},
		func(s *shopv1beta1.StoreSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Size, s.Tier = ptrTo(c.Int31()), shopv1beta1.Tier(tier(c))
		},
		func(s *shop.Shelf, c randfill.Continue) { c.FillNoCustom(s); s.Slots = 1 + c.Int31n(100) },
		func(s *shopv1.Shelf, c randfill.Continue) { c.FillNoCustom(s); s.Slots = 1 + c.Int31n(100) },
		func(s *shopv1beta1.Shelf, c randfill.Continue) { c.FillNoCustom(s); s.Slots = 1 + c.Int31n(100) },
		func(s *shop.RegionSpec, c randfill.Continue) { c.FillNoCustom(s); s.Default = ptrTo(c.Bool()) },
		func(s *shopv1.RegionSpec, c randfill.Continue) { c.FillNoCustom(s); s.Default = ptrTo(c.Bool()) },
		func(s *shopv1beta1.RegionSpec, c randfill.Continue) { c.FillNoCustom(s); s.Default = ptrTo(c.Bool()) },
	)
}

// robotsFuzzerFuncs set the fields +kubebuilder:default fills on decode.
func robotsFuzzerFuncs(codecs serializer.CodecFactory) []any {
	return append(commonFuzzerFuncs(codecs),
		func(s *robotsv1.RobotSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Arms = ptrTo(1 + c.Int31n(8))
			if s.Firmware == "" {
				s.Firmware = "1.0.0"
			}
		},
		func(w *robotsv1.MaintenanceWindow, c randfill.Continue) {
			c.FillNoCustom(w)
			w.Hours = 1 + c.Int31n(24)
		},
		func(s *robotsv1.FactorySpec, c randfill.Continue) { c.FillNoCustom(s); s.Shifts = 1 + c.Int31n(3) },
	)
}

// craftsFuzzerFuncs set the fields +kubebuilder:default fills on decode, in both versions.
func craftsFuzzerFuncs(codecs serializer.CodecFactory) []any {
	return append(commonFuzzerFuncs(codecs),
		func(s *craftsv1.BoatSpec, c randfill.Continue) { c.FillNoCustom(s); s.Crew = 1 + c.Int31n(9) },
		func(s *craftsv1beta1.BoatSpec, c randfill.Continue) { c.FillNoCustom(s); s.Crew = 1 + c.Int31n(9) },
		func(s *craftsv1.DockSpec, c randfill.Continue) { c.FillNoCustom(s); s.Capacity = 1 + c.Int31n(9) },
		func(s *craftsv1beta1.DockSpec, c randfill.Continue) { c.FillNoCustom(s); s.Capacity = 1 + c.Int31n(9) },
	)
}

// newFuzzer returns a randomly seeded filler for g's types over codecs.
func (g corpusGroup) newFuzzer(codecs serializer.CodecFactory) *randfill.Filler {
	return fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, g.fuzzerFuncs), rand.NewSource(rand.Int63()), codecs)
}

// TestCorpusRoundTrip fuzzes every kind of each corpus group and round-trips it as
// apimachinery's round-trip tests do for Kubernetes' own groups: internal kinds through every
// served version (RoundTripTypesWithoutProtobuf; the kubebuilder tree has none), and every
// external kind of the group through JSON.
func TestCorpusRoundTrip(t *testing.T) {
	nonRoundTrippable := roundtrip.GlobalNonRoundTrippableTypes()
	for _, g := range corpusGroups {
		t.Run(g.tree, func(t *testing.T) {
			scheme := runtime.NewScheme()
			g.install(scheme)
			codecs := serializer.NewCodecFactory(scheme)
			f := g.newFuzzer(codecs)
			roundtrip.RoundTripTypesWithoutProtobuf(t, scheme, codecs, f, nil)
			n := 0
			for gvk := range scheme.AllKnownTypes() {
				if gvk.Group != g.group || gvk.Version == runtime.APIVersionInternal || nonRoundTrippable.Has(gvk.Kind) {
					continue
				}
				roundtrip.RoundTripSpecificKindWithoutProtobuf(t, gvk, scheme, codecs, f, nil)
				n++
			}
			if want := len(g.versions) * len(g.kinds) * 2; n < want { // each kind and its list
				t.Errorf("round-tripped %d external kinds of %s, want at least %d", n, g.group, want)
			}
		})
	}
}

// TestCorpusRoundTripThroughStorage writes fuzzed objects of every kind in every served
// version the way the server does (version JSON -> internal -> the kind's storage-version
// JSON; without an internal package the storage version's types are the hub) and reads them
// back through the same version: they must come back identical.
func TestCorpusRoundTripThroughStorage(t *testing.T) {
	for _, g := range corpusGroups {
		t.Run(g.tree, func(t *testing.T) {
			scheme := runtime.NewScheme()
			g.install(scheme)
			codecs := serializer.NewCodecFactory(scheme)
			f := g.newFuzzer(codecs)
			info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
			for _, kind := range g.kinds {
				stored := schema.GroupVersion{Group: g.group, Version: g.storageOf(kind)}
				hub := schema.GroupVersion{Group: g.group, Version: runtime.APIVersionInternal}
				if !scheme.Recognizes(hub.WithKind(kind)) { // no internal package: the storage version is the hub
					hub = stored
				}
				storage := codecs.CodecForVersions(info.Serializer, info.Serializer, stored, hub)
				for _, v := range g.versions {
					gv := schema.GroupVersion{Group: g.group, Version: v}
					served := codecs.CodecForVersions(info.Serializer, info.Serializer, gv, hub)
					for i := 0; i < 100; i++ {
						throughStorage(t, scheme, codecs, f, gv.WithKind(kind), served, storage)
					}
				}
			}
		})
	}
}

// throughStorage fills one object of gvk, writes it through served and storage codecs and
// reads it back; it fails t when the object changed.
func throughStorage(t *testing.T, scheme *runtime.Scheme, codecs serializer.CodecFactory, f *randfill.Filler,
	gvk schema.GroupVersionKind, served, storage runtime.Codec) {
	t.Helper()
	in, err := scheme.New(gvk)
	if err != nil {
		t.Fatalf("cannot create a %s: %v", gvk, err)
	}
	f.Fill(in)
	in.GetObjectKind().SetGroupVersionKind(gvk)
	step := func(what string, fn func() (runtime.Object, error)) runtime.Object {
		obj, err := fn()
		if err != nil {
			t.Fatalf("%s: cannot %s: %v", gvk, what, err)
		}
		return obj
	}
	written := step("encode", func() (runtime.Object, error) { return encodeDecode(served, in) })
	stored := step("store", func() (runtime.Object, error) { return encodeDecode(storage, written) })
	back, err := runtime.Encode(served, stored)
	if err != nil {
		t.Fatalf("%s: cannot encode the read object: %v", gvk, err)
	}
	out, err := runtime.Decode(codecs.UniversalDeserializer(), back)
	if err != nil {
		t.Fatalf("%s: cannot decode %s: %v", gvk, back, err)
	}
	if !apiequality.Semantic.DeepEqual(in, out) {
		t.Fatalf("%s changed on its way through storage (-in +out):\n%s", gvk, diff.Diff(in, out))
	}
}

// encodeDecode encodes obj with codec and decodes the bytes back with it: to the codec's
// decoding (internal) version.
func encodeDecode(codec runtime.Codec, obj runtime.Object) (runtime.Object, error) {
	b, err := runtime.Encode(codec, obj)
	if err != nil {
		return nil, err
	}
	return runtime.Decode(codec, b)
}

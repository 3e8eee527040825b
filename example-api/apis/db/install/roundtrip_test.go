package install_test

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
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/diff"
	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1"
)

const gibibyte = 1 << 30

// fuzzerFuncs keep fuzzed objects inside what the API can represent in every version, as
// Kubernetes' per-group fuzzers do: storage in whole gibibytes (v1alpha1 has no finer unit),
// fields that defaulting would fill already set, and times at second precision.
func fuzzerFuncs(codecs serializer.CodecFactory) []interface{} {
	return []interface{}{
		func(s *db.DatabaseSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas = ptrTo(c.Int31n(10))
			s.Storage = *resource.NewQuantity(int64(1+c.Int31n(4096))*gibibyte, resource.BinarySI)
		},
		func(s *v1.DatabaseSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas = ptrTo(c.Int31n(10))
			s.Storage = *resource.NewQuantity(int64(1+c.Int31n(4096))*gibibyte, resource.BinarySI)
		},
		func(s *v1alpha1.DatabaseSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas = ptrTo(c.Int31n(10))
			s.SizeGiB = 1 + c.Int31n(4096)
		},
		func(p *db.BackupPolicy, c randfill.Continue) {
			c.FillNoCustom(p)
			p.RetentionDays = 1 + c.Int31n(365)
		},
		func(p *v1.BackupPolicy, c randfill.Continue) {
			c.FillNoCustom(p)
			p.RetentionDays = 1 + c.Int31n(365)
		},
		func(p *v1alpha1.BackupPolicy, c randfill.Continue) {
			c.FillNoCustom(p)
			p.RetentionDays = 1 + c.Int31n(365)
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<50), resource.BinarySI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestRoundTripTypes fuzzes every internal kind, encodes it in every served version, decodes it
// back and compares, as apimachinery's round-trip tests do for Kubernetes' own groups.
func TestRoundTripTypes(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, fuzzerFuncs), rand.NewSource(rand.Int63()), codecs)
	roundtrip.RoundTripTypesWithoutProtobuf(t, scheme, codecs, f, nil)
}

// TestV1alpha1RoundTripThroughStorage writes randomly filled v1alpha1 objects the way the
// server does (v1alpha1 JSON -> hub -> v1 storage JSON) and reads them back through v1alpha1:
// they must come back identical.
func TestV1alpha1RoundTripThroughStorage(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	hub := db.SchemeGroupVersion
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	alphaCodec := codecs.CodecForVersions(info.Serializer, info.Serializer, v1alpha1.SchemeGroupVersion, hub)
	storageCodec := codecs.CodecForVersions(info.Serializer, info.Serializer, v1.SchemeGroupVersion, hub)
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, fuzzerFuncs), rand.NewSource(rand.Int63()), codecs)

	for i := 0; i < 200; i++ {
		for _, in := range []runtime.Object{&v1alpha1.Database{}, &v1alpha1.DatabaseClass{}} {
			f.Fill(in)
			in.GetObjectKind().SetGroupVersionKind(v1alpha1.SchemeGroupVersion.WithKind(kindOf(in)))
			written, err := runtime.Encode(alphaCodec, in)
			if err != nil {
				t.Fatalf("cannot encode %T: %v", in, err)
			}
			internal, err := runtime.Decode(alphaCodec, written)
			if err != nil {
				t.Fatalf("cannot decode %s: %v", written, err)
			}
			stored, err := runtime.Encode(storageCodec, internal)
			if err != nil {
				t.Fatalf("cannot encode for storage: %v", err)
			}
			read, err := runtime.Decode(storageCodec, stored)
			if err != nil {
				t.Fatalf("cannot decode stored %s: %v", stored, err)
			}
			back, err := runtime.Encode(alphaCodec, read)
			if err != nil {
				t.Fatalf("cannot encode the read object: %v", err)
			}
			out, err := runtime.Decode(codecs.UniversalDeserializer(), back)
			if err != nil {
				t.Fatalf("cannot decode %s: %v", back, err)
			}
			if !apiequality.Semantic.DeepEqual(in, out) {
				t.Fatalf("%T changed on its way through storage (-in +out):\n%s", in, diff.Diff(in, out))
			}
		}
	}
}

func kindOf(obj runtime.Object) string {
	switch obj.(type) {
	case *v1alpha1.Database:
		return "Database"
	case *v1alpha1.DatabaseClass:
		return "DatabaseClass"
	}
	return ""
}

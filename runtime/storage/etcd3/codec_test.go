package etcd3

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	testinstall "github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	testv1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
	storagetestapi "github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestEncodeStoredMatchesDecode fuzzes objects through Codec.encodeStored and checks that the
// object it returns serializes exactly as a Decode of the bytes it returns: for a group with
// an internal version, a defaulted field (spec.size) and conversions, and for a group whose
// storage version is its internal type.
func TestEncodeStoredMatchesDecode(t *testing.T) {
	scheme, err := testinstall.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	hub := newCodec(scheme, testv1.SchemeGroupVersion, testapi.SchemeGroupVersion)
	flatScheme := storagetestapi.NewScheme()
	flat := newCodec(flatScheme, storagetestapi.SchemeGroupVersion, storagetestapi.SchemeGroupVersion)
	f := randfill.NewWithSeed(1).NilChance(0.2).NumElements(0, 3).Funcs(fillObjectMeta, fillWidgetSpec)
	for i := range 300 {
		w := &testapi.Widget{}
		f.Fill(w)
		checkEncodeStored(t, i, hub, w, func() runtime.Object { return &testapi.Widget{} })
		fw := &storagetestapi.Widget{}
		f.Fill(fw)
		checkEncodeStored(t, i, flat, fw, storagetestapi.NewWidget)
	}
}

// newCodec returns a Codec with a plain JSON serializer.
func newCodec(scheme *runtime.Scheme, storage, internal schema.GroupVersion) *Codec {
	return NewCodec(scheme, kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{}),
		storage, internal)
}

// fillObjectMeta fills what a stored object's metadata may hold: random names, labels,
// sub-second timestamps (a JSON round trip keeps whole seconds), no resourceVersion (storage
// refuses it) and no managedFields (random bytes are not the JSON they must be).
func fillObjectMeta(m *metav1.ObjectMeta, c randfill.Continue) {
	c.FillNoCustom(m)
	m.ResourceVersion = ""
	m.ManagedFields = nil
}

// fillWidgetSpec leaves every other size zero, for the v1 defaulter to set.
func fillWidgetSpec(s *testapi.WidgetSpec, c randfill.Continue) {
	c.FillNoCustom(s)
	if c.Intn(2) == 0 {
		s.Size = 0
	}
}

// checkEncodeStored compares encodeStored's object with the decode of its bytes, as JSON.
func checkEncodeStored(t *testing.T, i int, c *Codec, obj runtime.Object, newFunc func() runtime.Object) {
	t.Helper()
	before := obj.DeepCopyObject()
	data, got, err := c.encodeStored(obj, newFunc())
	if err != nil {
		t.Fatalf("case %d: encodeStored: %v", i, err)
	}
	if diff := cmp.Diff(before, obj, cmpopts.EquateEmpty()); diff != "" { // testapi's DeepCopy makes [] nil
		t.Fatalf("case %d: encodeStored changed its input (-before +after):\n%s", i, diff)
	}
	want, _, err := c.Decode(data, nil, newFunc())
	if err != nil {
		t.Fatalf("case %d: Decode: %v", i, err)
	}
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(wantJSON), string(gotJSON)); diff != "" {
		t.Fatalf("case %d: encodeStored's object differs from the decoded one (-decoded +encodeStored):\n%s", i, diff)
	}
}

package jsonserializer_test

import (
	"bytes"
	"reflect"
	"sync/atomic"
	"testing"

	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
	"github.com/apigen-dev/apigen/runtime/storage/jsonserializer"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// fastDecodes and fastEncodes count the calls of Widget's codec, hand-written here as
// apigen's generator would write it, so the tests see the serializer take the fast path.
var fastDecodes, fastEncodes atomic.Int64

func init() { jsoncodec.Register(encodeWidget, decodeWidget) }

func encodeWidget(w *jsoncodec.Writer, in *testapi.Widget) {
	fastEncodes.Add(1)
	more := false
	w.Byte('{')
	if in.Kind != "" {
		w.Field(&more, `"kind":`)
		w.String(in.Kind)
	}
	if in.APIVersion != "" {
		w.Field(&more, `"apiVersion":`)
		w.String(in.APIVersion)
	}
	w.Field(&more, `"metadata":`)
	w.Value(&in.ObjectMeta)
	w.Field(&more, `"spec":`)
	w.Byte('{')
	inner := false
	if in.Spec.Color != "" {
		w.Field(&inner, `"color":`)
		w.String(in.Spec.Color)
	}
	if in.Spec.Size != 0 {
		w.Field(&inner, `"size":`)
		w.Int(int64(in.Spec.Size))
	}
	w.Byte('}')
	w.Byte('}')
}

func decodeWidget(r *jsoncodec.Reader, out *testapi.Widget) {
	fastDecodes.Add(1)
	if r.Null() || !r.Object() {
		return
	}
	var seen [4]bool
	field := func(i int) bool {
		if seen[i] {
			r.Fail()
			return false
		}
		seen[i] = true
		return true
	}
	for n := 0; r.Member(n) && !r.Failed(); n++ {
		switch string(r.Key()) {
		case "kind":
			if field(0) && !r.Null() {
				out.Kind = r.Str()
			}
		case "apiVersion":
			if field(1) && !r.Null() {
				out.APIVersion = r.Str()
			}
		case "metadata":
			if field(2) {
				r.Value(&out.ObjectMeta)
			}
		case "spec":
			if !field(3) || r.Null() || !r.Object() {
				continue
			}
			var inner [2]bool
			for m := 0; r.Member(m) && !r.Failed(); m++ {
				switch k := string(r.Key()); {
				case k == "color" && !inner[0]:
					inner[0] = true
					if !r.Null() {
						out.Spec.Color = r.Str()
					}
				case k == "size" && !inner[1]:
					inner[1] = true
					if !r.Null() {
						out.Spec.Size = int32(r.Int(32))
					}
				default:
					r.Fail()
				}
			}
		default:
			r.Fail()
		}
	}
}

// TestFastPaths: a Widget with a registered codec is encoded and decoded by it, to the
// same bytes and object as apimachinery's serializer.
func TestFastPaths(t *testing.T) {
	scheme := testapi.NewScheme()
	fast := jsonserializer.NewSerializer(scheme, scheme, kjson.SerializerOptions{})
	exact := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{})
	w := testapi.NewWidget().(*testapi.Widget)
	w.APIVersion, w.Kind = testapi.SchemeGroupVersion.String(), "Widget"
	w.Name, w.Namespace, w.Labels, w.Spec.Color, w.Spec.Size = "a", "ns", map[string]string{"<b>": "&"}, "red", 3

	encodes := fastEncodes.Load()
	var got, want bytes.Buffer
	if err := fast.Encode(w, &got); err != nil {
		t.Fatal(err)
	}
	if err := exact.Encode(w, &want); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || fastEncodes.Load() != encodes+1 {
		t.Errorf("Encode wrote %q (fast encodes %d), apimachinery %q", got.String(), fastEncodes.Load()-encodes, want.String())
	}

	decodes := fastDecodes.Load()
	obj, gvk, err := fast.Decode(got.Bytes(), nil, nil)
	if err != nil || fastDecodes.Load() != decodes+1 {
		t.Fatalf("Decode: %v (fast decodes %d)", err, fastDecodes.Load()-decodes)
	}
	wantObj, wantGVK, _ := exact.Decode(got.Bytes(), nil, nil)
	if *gvk != *wantGVK || !equalWidgets(obj, wantObj) {
		t.Errorf("Decode = %#v %v, apimachinery %#v %v", obj, gvk, wantObj, wantGVK)
	}

	// A target that is not empty is left to apimachinery, which merges into it.
	into := testapi.NewWidget().(*testapi.Widget)
	into.Spec.Size = 9
	decodes = fastDecodes.Load()
	if _, _, err := fast.Decode([]byte(`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","spec":{"color":"blue"}}`), nil, into); err != nil {
		t.Fatal(err)
	}
	if fastDecodes.Load() != decodes || into.Spec.Size != 9 || into.Spec.Color != "blue" {
		t.Errorf("decoding into a non-empty Widget: fast decodes %d, spec %+v; want 0 and a merge", fastDecodes.Load()-decodes, into.Spec)
	}
}

// equalWidgets compares decoded objects exactly, unexported time fields included.
func equalWidgets(a, b any) bool { return reflect.DeepEqual(a, b) }

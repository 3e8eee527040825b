package json_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// fastDecodes and fastEncodes count the calls of Widget's codec, hand-written here as
// apigen's generator would write it, so the tests see the serializer take the fast path.
var fastDecodes, fastEncodes atomic.Int64

func init() {
	jsoncodec.Register(encodeWidget, decodeWidget)
	jsoncodec.Register(encodeWidgetList, nil)
}

// unencodable is a color encodeWidget refuses (jsoncodec.Writer.Fail), as a codec refuses a
// value it cannot write, so that the serializer's fallbacks can be seen.
const unencodable = "unencodable"

func encodeWidget(w *jsoncodec.Writer, in *testapi.Widget) {
	fastEncodes.Add(1)
	if in.Spec.Color == unencodable {
		w.Fail()
		return
	}
	more := false
	w.Byte('{')
	encodeTypeMeta(w, &more, &in.TypeMeta)
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

// encodeTypeMeta writes kind and apiVersion when set, as generated codecs do.
func encodeTypeMeta(w *jsoncodec.Writer, more *bool, in *metav1.TypeMeta) {
	if in.Kind != "" {
		w.Field(more, `"kind":`)
		w.String(in.Kind)
	}
	if in.APIVersion != "" {
		w.Field(more, `"apiVersion":`)
		w.String(in.APIVersion)
	}
}

// encodeWidgetList is WidgetList's codec as apigen's generator writes a list's.
func encodeWidgetList(w *jsoncodec.Writer, in *testapi.WidgetList) {
	more := false
	w.Byte('{')
	encodeTypeMeta(w, &more, &in.TypeMeta)
	w.Field(&more, `"metadata":`)
	w.Value(&in.ListMeta)
	w.Raw(`,"items":`)
	if in.Items == nil {
		w.Null()
		w.Byte('}')
		return
	}
	w.Byte('[')
	for i := range in.Items {
		if i > 0 {
			w.Byte(',')
		}
		encodeWidget(w, &in.Items[i])
	}
	w.Byte(']')
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

// writes records the size of each Write.
type writes struct {
	bytes.Buffer
	sizes []int
}

func (w *writes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// widgetList returns a list of n widgets of about 200 bytes of JSON each.
func widgetList(n int) *testapi.WidgetList {
	l := &testapi.WidgetList{Items: make([]testapi.Widget, n)}
	l.APIVersion, l.Kind = testapi.SchemeGroupVersion.String(), "WidgetList"
	l.ResourceVersion, l.Continue = "42", "token"
	for i := range l.Items {
		l.Items[i].Name, l.Items[i].Namespace = fmt.Sprintf("widget-%05d", i), "ns"
		l.Items[i].Labels = map[string]string{"app": "bench", "tier": strings.Repeat("x", 100)}
		l.Items[i].Spec.Color, l.Items[i].Spec.Size = "red", int32(i)
	}
	return l
}

// TestListsAreStreamed: a list with items is written item by item in writes of about 32
// KiB, not whole, with the bytes apimachinery writes; one whose codec refuses an item before
// the first write is encoded the exact way; one whose codec refuses an item after it ends early
// with an error; lists without items are written whole, nil items as null.
func TestListsAreStreamed(t *testing.T) {
	scheme := testapi.NewScheme()
	fast := jsonserializer.NewSerializer(scheme, scheme, kjson.SerializerOptions{})
	exact := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{})
	encode := func(t *testing.T, l *testapi.WidgetList) (got *writes, want string, err error) {
		t.Helper()
		var w bytes.Buffer
		if err := exact.Encode(l, &w); err != nil {
			t.Fatal(err)
		}
		got = &writes{}
		return got, w.String(), fast.Encode(l, got)
	}

	t.Run("streamed", func(t *testing.T) {
		l := widgetList(1000) // ~230 KiB
		got, want, err := encode(t, l)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Fatalf("streamed list differs from apimachinery's:\n%.300s\n%.300s", got.String(), want)
		}
		if len(got.sizes) < 5 || slices.Max(got.sizes) > 40<<10 {
			t.Errorf("list of %d bytes written in %d writes of at most %d bytes; want writes of about 32 KiB",
				got.Len(), len(got.sizes), slices.Max(got.sizes))
		}
		if l.Items == nil || len(l.Items) != 1000 {
			t.Errorf("Encode changed the list's items")
		}
	})
	t.Run("small-and-empty", func(t *testing.T) {
		for _, l := range []*testapi.WidgetList{widgetList(3), widgetList(0), {Items: nil}} {
			got, want, err := encode(t, l)
			if err != nil || got.String() != want || len(got.sizes) != 1 {
				t.Errorf("%d items: wrote %q in %d writes (%v); want %q in one", len(l.Items), got.String(), len(got.sizes), err, want)
			}
		}
	})
	t.Run("refused-before-first-write", func(t *testing.T) {
		l := widgetList(1000)
		l.Items[10].Spec.Color = unencodable
		got, want, err := encode(t, l)
		if err != nil || got.String() != want {
			t.Errorf("wrote %.200q (%v); want apimachinery's %.200q", got.String(), err, want)
		}
	})
	t.Run("refused-after-first-write", func(t *testing.T) {
		l := widgetList(1000)
		l.Items[900].Spec.Color = unencodable
		got, want, err := encode(t, l)
		if err == nil || !strings.Contains(err.Error(), "item 900") {
			t.Fatalf("Encode = %v; want an error naming item 900", err)
		}
		if got.Len() == 0 || got.Len() >= len(want) || !strings.HasPrefix(want, got.String()) {
			t.Errorf("wrote %d bytes; want a strict prefix of apimachinery's %d", got.Len(), len(want))
		}
	})
}

package json_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// documents are type-sniffing cases: the shapes clients and storage write, and the corners
// of encoding/json's rules (case-insensitive keys, last duplicate wins, null keeps a value,
// escapes, nesting), valid or not.
var documents = []string{
	`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"a"}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","metadata":{"name":"a"},"spec":{"color":"red"}}`,
	" {\n \"apiVersion\" : \"v1\" ,\t\"kind\":\"Widget\" } ",
	`{"metadata":{"kind":"Nested","apiVersion":"x/v9"},"kind":"Widget","apiVersion":"test.apigen.dev/v1"}`,
	`{"kind":"Widget","spec":{"refs":[{"kind":"Other"}],"s":"}]\"{["},"apiVersion":"test.apigen.dev/v1"}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","kind":"Gadget"}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","KIND":"Gadget","APIVERSION":"test.apigen.dev/v2"}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","kind":null}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","\u006bind":"Gadget"}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","\u212aind":"Gadget"}`,
	"{\"kind\":\"Widget\",\"apiVersion\":\"test.apigen.dev/v1\",\"\u212aind\":\"Gadget\"}",
	`{"kind":"Wid\u0067et","apiVersion":"test.apigen.dev/v1"}`,
	`{"kind":5,"apiVersion":"test.apigen.dev/v1"}`,
	`{"kind":"Widget","apiVersion":"a/b/c"}`,
	`{"kind":"Widget","n":-1.5e3,"t":true,"f":false,"z":null,"e":{},"a":[]}`,
	`{}`,
	`[]`,
	`null`,
	`"Widget"`,
	``,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1"`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"color":tru}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1"} trailing`,
	`{"kind":"Widget" "apiVersion":"test.apigen.dev/v1"}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"size":"big"}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"colour":"red"},"spec":{"size":2}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"color":"red","size":3}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"color":null,"size":null},"metadata":null}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"size":1.5}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"size":2147483648}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"size":2,"size":3}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":null,"metadata":{"name":"a","nam":"b"}}`,
	`{"kind":"Widget","apiVersion":"test.apigen.dev/v1","spec":{"color":"r\u00e9d\u2028"}} `,
}

// TestInterpretMatchesSimpleMetaFactory: on every valid document MetaFactory answers as
// json.SimpleMetaFactory, error text included.
func TestInterpretMatchesSimpleMetaFactory(t *testing.T) {
	for _, doc := range documents {
		if json.Valid([]byte(doc)) {
			checkInterpret(t, []byte(doc))
		}
	}
}

// FuzzInterpret checks MetaFactory against json.SimpleMetaFactory on valid JSON documents.
func FuzzInterpret(f *testing.F) {
	for _, doc := range documents {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if json.Valid(data) {
			checkInterpret(t, data)
		}
	})
}

func checkInterpret(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := kjson.DefaultMetaFactory.Interpret(data)
	got, gotErr := jsonserializer.MetaFactory{}.Interpret(data)
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || !cmp.Equal(want, got) {
		t.Errorf("Interpret(%s) = %v, %v; json.SimpleMetaFactory says %v, %v", data, got, gotErr, want, wantErr)
	}
}

// TestDecodeMatchesApimachinery: for every document, valid or not, every serializer
// variant decodes exactly as apimachinery's with json.DefaultMetaFactory: the same object,
// kind and error.
func TestDecodeMatchesApimachinery(t *testing.T) {
	scheme := testapi.NewScheme()
	defaultGVK := testapi.SchemeGroupVersion.WithKind("Widget")
	for _, opts := range []kjson.SerializerOptions{{}, {Strict: true}, {Yaml: true}, {Yaml: true, Strict: true}} {
		fast := jsonserializer.NewSerializer(scheme, scheme, opts)
		exact := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, opts)
		for _, doc := range documents {
			for _, into := range []func() runtime.Object{func() runtime.Object { return nil }, testapi.NewWidget} {
				for _, gvk := range []*schema.GroupVersionKind{nil, &defaultGVK} {
					gotObj, gotGVK, gotErr := fast.Decode([]byte(doc), gvk, into())
					wantObj, wantGVK, wantErr := exact.Decode([]byte(doc), gvk, into())
					if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !cmp.Equal(gotGVK, wantGVK) || !cmp.Equal(gotObj, wantObj) {
						t.Errorf("%+v Decode(%s, %v, %T):\n got %#v, %v, %v\nwant %#v, %v, %v",
							opts, doc, gvk, into(), gotObj, gotGVK, gotErr, wantObj, wantGVK, wantErr)
					}
				}
			}
		}
	}
}

// BenchmarkDecode compares decoding a stored widget (~1 KiB) with MetaFactory and with
// json.DefaultMetaFactory: `go test -bench Decode ./runtime/serializer/json`.
func BenchmarkDecode(b *testing.B) {
	scheme := testapi.NewScheme()
	labels := map[string]string{}
	for i := range 40 {
		labels[fmt.Sprintf("label-%02d.example.com", i)] = fmt.Sprintf("value-%02d", i)
	}
	w := testapi.NewWidget().(*testapi.Widget)
	w.APIVersion, w.Kind = testapi.SchemeGroupVersion.String(), "Widget"
	w.Name, w.Namespace, w.Labels, w.Spec.Color = "bench", "ns", labels, "red"
	data, err := json.Marshal(w)
	if err != nil {
		b.Fatal(err)
	}
	for name, ser := range map[string]runtime.Decoder{
		"MetaFactory":        jsonserializer.NewSerializer(scheme, scheme, kjson.SerializerOptions{}),
		"DefaultMetaFactory": kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{}),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ser.Decode(data, nil, testapi.NewWidget()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

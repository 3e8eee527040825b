package testapi_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

func sample() *testapi.Widget {
	return &testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"color": "red"}},
		Spec:       testapi.WidgetSpec{Color: "red", Size: 3},
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	w := sample()
	c := w.DeepCopyObject().(*testapi.Widget)
	c.Labels["color"] = "blue"
	if w.Labels["color"] != "red" {
		t.Errorf("changing the copy's labels changed the original")
	}
	l := &testapi.WidgetList{Items: []testapi.Widget{*sample()}}
	lc := l.DeepCopyObject().(*testapi.WidgetList)
	lc.Items[0].Labels["color"] = "blue"
	if l.Items[0].Labels["color"] != "red" {
		t.Errorf("changing the list copy's item labels changed the original")
	}
}

func TestCodecRoundTrip(t *testing.T) {
	codec := testapi.Codec()
	var buf bytes.Buffer
	if err := codec.Encode(sample(), &buf); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"apiVersion":"test.apigen.dev/v1"`)) || !bytes.Contains(buf.Bytes(), []byte(`"kind":"Widget"`)) {
		t.Errorf("encoded %s; want apiVersion and kind set", buf.String())
	}
	got, _, err := codec.Decode(buf.Bytes(), nil, testapi.NewWidget())
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	want := sample()
	want.APIVersion, want.Kind = "", ""
	got.GetObjectKind().SetGroupVersionKind(want.GroupVersionKind())
	if diff := cmp.Diff(runtime.Object(want), got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestGetAttrs(t *testing.T) {
	l, f, err := testapi.GetAttrs(sample())
	if err != nil || l["color"] != "red" || f["spec.color"] != "red" || f["metadata.name"] != "a" {
		t.Errorf("GetAttrs = %v, %v, %v", l, f, err)
	}
	if _, _, err := testapi.GetAttrs(&testapi.WidgetList{}); err == nil {
		t.Errorf("GetAttrs of a list: no error")
	}
}

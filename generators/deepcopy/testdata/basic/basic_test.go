package basic

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"
)

// TestDeepCopy fills every root type at random, deep-copies it and checks that the copy is
// equal to the original and shares no pointer, slice or map with it.
func TestDeepCopy(t *testing.T) {
	f := randfill.New().NilChance(0.2).NumElements(1, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(tm *metav1.Time, c randfill.Continue) { *tm = metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy() },
	)
	for i := 0; i < 200; i++ {
		var w Widget
		f.Fill(&w)
		checkCopy(t, &w, w.DeepCopy())
		var l WidgetList
		f.Fill(&l)
		checkCopy(t, &l, l.DeepCopyObject())
		var c Custom
		f.Fill(&c)
		checkCopy(t, &c, c.DeepCopyObject())
	}
	var nilWidget *Widget
	if nilWidget.DeepCopy() != nil {
		t.Error("DeepCopy of a nil *Widget is not nil")
	}
}

func checkCopy(t *testing.T, in, out any) {
	t.Helper()
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("deep copy differs from the original:\n%#v\n%#v", in, out)
	}
	noAlias(t, "", reflect.ValueOf(in), reflect.ValueOf(out))
}

var timeType = reflect.TypeOf(time.Time{})

// noAlias fails when a and b, equal values, share the memory of a non-empty pointer, slice
// or map anywhere below path.
func noAlias(t *testing.T, path string, a, b reflect.Value) {
	t.Helper()
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Fatalf("%s: the copy shares a pointer with the original", path)
		}
		noAlias(t, path, a.Elem(), b.Elem())
	case reflect.Interface:
		if !a.IsNil() {
			noAlias(t, path, a.Elem(), b.Elem())
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			t.Fatalf("%s: the copy shares a slice with the original", path)
		}
		for i := 0; i < a.Len(); i++ {
			noAlias(t, path+"[]", a.Index(i), b.Index(i))
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			noAlias(t, path+"[]", a.Index(i), b.Index(i))
		}
	case reflect.Map:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			t.Fatalf("%s: the copy shares a map with the original", path)
		}
		for _, k := range a.MapKeys() {
			noAlias(t, path+"{}", a.MapIndex(k), b.MapIndex(k))
		}
	case reflect.Struct:
		if a.Type() == timeType {
			return // time.Time shares its *Location by design
		}
		for i := 0; i < a.NumField(); i++ {
			noAlias(t, path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
		}
	}
}

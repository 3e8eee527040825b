package install_test

import (
	"math/rand"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	dbfuzzer "github.com/apigen-dev/apigen/example-api/apis/db/fuzzer"
	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1"
	"github.com/apigen-dev/apigen/runtime/fieldmanager"
)

// TestTypeConverterMatchesManagedFields holds runtime/fieldmanager's TypeConverter to
// managedfields' own over the same models, on random objects of every kind of both versions:
// the same data, the same field set, and the same comparison with another random object.
func TestTypeConverterMatchesManagedFields(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	tc, err := fieldmanager.NewTypeConverter(scheme, install.GetOpenAPIDefinitions)
	if err != nil {
		t.Fatal(err)
	}
	models, err := fieldmanager.Models(scheme, install.GetOpenAPIDefinitions)
	if err != nil {
		t.Fatal(err)
	}
	reference, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []func() runtime.Object{
		func() runtime.Object { return &v1.Database{} }, func() runtime.Object { return &v1.Backup{} },
		func() runtime.Object { return &v1.DatabaseClass{} }, func() runtime.Object { return &v1alpha1.Database{} },
	}
	for _, newObj := range kinds {
		for i := range 40 {
			a, b := newObj(), newObj()
			fillObject(int64(2*i), a)
			fillObject(int64(2*i+1), b)
			if i%5 == 0 {
				b = a.DeepCopyObject()
			}
			var got, want [2]*typed.TypedValue
			for j, obj := range []runtime.Object{a, b} {
				gvks, _, err := scheme.ObjectKinds(obj)
				if err != nil {
					t.Fatal(err)
				}
				obj.GetObjectKind().SetGroupVersionKind(gvks[0])
				if got[j], err = tc.ObjectToTyped(obj, typed.AllowDuplicates); err != nil {
					t.Fatal(err)
				}
				if want[j], err = reference.ObjectToTyped(obj, typed.AllowDuplicates); err != nil {
					t.Fatal(err)
				}
				if g, w := got[j].AsValue().Unstructured(), want[j].AsValue().Unstructured(); !reflect.DeepEqual(g, w) {
					t.Fatalf("%T %d: data\n got %#v\nwant %#v", obj, i, g, w)
				}
				gs, err := got[j].ToFieldSet()
				if err != nil {
					t.Fatal(err)
				}
				ws, err := want[j].ToFieldSet()
				if err != nil {
					t.Fatal(err)
				}
				if !gs.Equals(ws) {
					t.Fatalf("%T %d: field set\n got %v\nwant %v", obj, i, gs, ws)
				}
			}
			gc, err := got[0].Compare(got[1])
			if err != nil {
				t.Fatal(err)
			}
			wc, err := want[0].Compare(want[1])
			if err != nil {
				t.Fatal(err)
			}
			if !gc.Added.Equals(wc.Added) || !gc.Modified.Equals(wc.Modified) || !gc.Removed.Equals(wc.Removed) {
				t.Fatalf("%T %d: comparison\n got %v\nwant %v", a, i, gc, wc)
			}
		}
	}
}

// fillObject fills obj from seed as dbFill does.
func fillObject(seed int64, obj runtime.Object) {
	fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, dbfuzzer.Funcs), rand.NewSource(seed), dbCodecs()).Fill(obj)
}

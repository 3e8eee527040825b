package validation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/operation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
)

// The test API: a Widget with an internal version and two served versions that name its
// size differently (size in v1, sizeGiB in v2), as example-api's Database does.
const testGroup = "widgets.example.com"

var (
	internalGV = schema.GroupVersion{Group: testGroup, Version: runtime.APIVersionInternal}
	v1GV       = schema.GroupVersion{Group: testGroup, Version: "v1"}
	v2GV       = schema.GroupVersion{Group: testGroup, Version: "v2"}
)

type widget struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Size int
}

type widgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Size              int `json:"size"`
}

type widgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	SizeGiB           int `json:"sizeGiB"`
}

// gadget is a kind registered without a validation function.
type gadget struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (w *widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (w *widgetV1) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (w *widgetV2) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (g *gadget) DeepCopyObject() runtime.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// seen records what a validation function was called with.
type seen struct {
	op           operation.Type
	subresources []string
	oldSize      int // -1 when there was no old object
}

// newTestScheme registers the widget kinds, their conversions and one validation function
// per version: size at most 10 in v1, sizeGiB at most 10 in v2, each at its own field path.
// Calls are appended to calls.
func newTestScheme(t testing.TB, calls *[]seen) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(internalGV.WithKind("Widget"), &widget{})
	s.AddKnownTypeWithName(v1GV.WithKind("Widget"), &widgetV1{})
	s.AddKnownTypeWithName(v2GV.WithKind("Widget"), &widgetV2{})
	s.AddKnownTypeWithName(internalGV.WithKind("Gadget"), &gadget{})
	s.AddKnownTypeWithName(v1GV.WithKind("Gadget"), &gadget{})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddConversionFunc((*widget)(nil), (*widgetV1)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*widget), b.(*widgetV1)
		out.ObjectMeta, out.Size = in.ObjectMeta, in.Size
		return nil
	}))
	must(s.AddConversionFunc((*widget)(nil), (*widgetV2)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*widget), b.(*widgetV2)
		out.ObjectMeta, out.SizeGiB = in.ObjectMeta, in.Size
		return nil
	}))
	must(s.SetVersionPriority(v1GV, v2GV))
	record := func(op operation.Operation, old int) {
		*calls = append(*calls, seen{op: op.Type, subresources: op.Request.Subresources, oldSize: old})
	}
	s.AddValidationFunc((*widgetV1)(nil), func(_ context.Context, op operation.Operation, obj, old any) field.ErrorList {
		oldSize := -1
		if old != nil {
			oldSize = old.(*widgetV1).Size
		}
		record(op, oldSize)
		if size := obj.(*widgetV1).Size; size > 10 {
			return field.ErrorList{field.Invalid(field.NewPath("spec", "size"), size, "must be at most 10")}
		}
		return nil
	})
	s.AddValidationFunc((*widgetV2)(nil), func(_ context.Context, op operation.Operation, obj, old any) field.ErrorList {
		oldSize := -1
		if old != nil {
			oldSize = old.(*widgetV2).SizeGiB
		}
		record(op, oldSize)
		if size := obj.(*widgetV2).SizeGiB; size > 10 {
			return field.ErrorList{field.Invalid(field.NewPath("spec", "sizeGiB"), size, "must be at most 10")}
		}
		return nil
	})
	return s
}

func withRequest(group, version, subresource string) context.Context {
	return request.WithRequestInfo(context.Background(), &request.RequestInfo{
		IsResourceRequest: true, APIGroup: group, APIVersion: version, Resource: "widgets", Subresource: subresource,
	})
}

// paths renders errors as "field: detail".
func paths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Detail)
	}
	return out
}

func TestDeclarativeVersion(t *testing.T) {
	big := &widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Size: 11}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want []string
	}{
		{"the request's version", withRequest(testGroup, "v2", ""), []string{"spec.sizeGiB: must be at most 10"}},
		{"the other served version", withRequest(testGroup, "v1", ""), []string{"spec.size: must be at most 10"}},
		{"no request: the preferred version", context.Background(), []string{"spec.size: must be at most 10"}},
		{"a request of another group", withRequest("other.example.com", "v2", ""), []string{"spec.size: must be at most 10"}},
		{"a version without the kind", withRequest(testGroup, "v9", ""), []string{"spec.size: must be at most 10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls []seen
			got := paths(Declarative(tc.ctx, newTestScheme(t, &calls), big, nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors differ (-want +got):\n%s", diff)
			}
			if want := []seen{{op: operation.Create, oldSize: -1}}; !cmp.Equal(want, calls, cmp.AllowUnexported(seen{})) {
				t.Errorf("validation calls = %+v, want %+v", calls, want)
			}
		})
	}
}

func TestDeclarativeValid(t *testing.T) {
	var calls []seen
	if errs := Declarative(withRequest(testGroup, "v2", ""), newTestScheme(t, &calls), &widget{Size: 10}, nil); len(errs) != 0 {
		t.Errorf("a valid widget was rejected: %v", errs)
	}
	if len(calls) != 1 {
		t.Errorf("the validation function ran %d times, want once", len(calls))
	}
}

func TestDeclarativeUpdate(t *testing.T) {
	var calls []seen
	scheme := newTestScheme(t, &calls)
	errs := Declarative(withRequest(testGroup, "v2", "status"), scheme, &widget{Size: 12}, &widget{Size: 3})
	if diff := cmp.Diff([]string{"spec.sizeGiB: must be at most 10"}, paths(errs)); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
	want := []seen{{op: operation.Update, subresources: []string{"status"}, oldSize: 3}}
	if diff := cmp.Diff(want, calls, cmp.AllowUnexported(seen{})); diff != "" {
		t.Errorf("validation calls differ (-want +got):\n%s", diff)
	}
}

func TestDeclarativeNoValidationFunc(t *testing.T) {
	var calls []seen
	if errs := Declarative(context.Background(), newTestScheme(t, &calls), &gadget{}, nil); len(errs) != 0 {
		t.Errorf("a kind without validation was rejected: %v", errs)
	}
	if len(calls) != 0 {
		t.Errorf("validation functions ran for a gadget: %+v", calls)
	}
}

// TestDeclarativeLeavesObjectsUnchanged: the conversions for validation do not copy, yet
// neither obj nor old changes, not even the apiVersion and kind the conversion of a type
// served as it is (gadget: the same type in __internal and v1) sets.
func TestDeclarativeLeavesObjectsUnchanged(t *testing.T) {
	var calls []seen
	scheme := newTestScheme(t, &calls)
	obj := &widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}}, Size: 12}
	old := &widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Size: 3}
	wantObj, wantOld := obj.DeepCopyObject(), old.DeepCopyObject()
	if errs := Declarative(withRequest(testGroup, "v2", ""), scheme, obj, old); len(errs) != 1 {
		t.Fatalf("errs = %v, want one", errs)
	}
	if diff := cmp.Diff(wantObj, runtime.Object(obj)); diff != "" {
		t.Errorf("obj changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(wantOld, runtime.Object(old)); diff != "" {
		t.Errorf("old changed (-before +after):\n%s", diff)
	}
	g, gOld := &gadget{ObjectMeta: metav1.ObjectMeta{Name: "g"}}, &gadget{ObjectMeta: metav1.ObjectMeta{Name: "g"}}
	if errs := Declarative(withRequest(testGroup, "v1", ""), scheme, g, gOld); len(errs) != 0 {
		t.Fatalf("errs = %v, want none", errs)
	}
	if g.TypeMeta != (metav1.TypeMeta{}) || gOld.TypeMeta != (metav1.TypeMeta{}) {
		t.Errorf("the gadgets' kinds changed to %+v and %+v, want them empty as before", g.TypeMeta, gOld.TypeMeta)
	}
}

// unknown is a type no scheme knows.
type unknown struct{ gadget }

// widgetV3 is a version without conversion functions.
type widgetV3 struct{ widgetV2 }

func (w *widgetV3) DeepCopyObject() runtime.Object { out := *w; return &out }

func TestDeclarativeErrors(t *testing.T) {
	var calls []seen
	scheme := newTestScheme(t, &calls)
	errs := Declarative(context.Background(), scheme, &unknown{}, nil)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal || !strings.Contains(errs[0].Detail, "cannot validate object") {
		t.Errorf("unknown type: errs = %v, want one internal error", errs)
	}
	// A version without a conversion from the internal type: an internal error naming the
	// kind and version, never a panic.
	v3GV := schema.GroupVersion{Group: testGroup, Version: "v3"}
	scheme.AddKnownTypeWithName(v3GV.WithKind("Widget"), &widgetV3{})
	errs = Declarative(withRequest(testGroup, "v3", ""), scheme, &widget{}, nil)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal || !strings.Contains(errs[0].Detail, fmt.Sprintf("cannot convert Widget to %s", v3GV)) {
		t.Errorf("failed conversion: errs = %v, want one internal error", errs)
	}
}

// BenchmarkDeclarative measures the per-request cost of Declarative on an update: two
// conversions to the request's version and one validation function.
func BenchmarkDeclarative(b *testing.B) {
	var calls []seen
	scheme := newTestScheme(b, &calls)
	ctx := withRequest(testGroup, "v2", "")
	obj, old := &widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}}, Size: 5}, &widget{Size: 4}
	for b.Loop() {
		calls = calls[:0]
		if errs := Declarative(ctx, scheme, obj, old); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

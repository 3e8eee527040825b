package v1_test

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/generators/equality/equalitytest"
	v1 "github.com/apigen-dev/apigen/generators/equality/testdata/shapes/v1"
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// fill fills obj from seed: times in several locations, floats NaN now and then, the
// recursive Node two levels deep, Hidden's unexported field nil or empty (any value in it
// makes equality.Semantic.DeepEqual panic).
func fill[T any](seed int64, obj *T) {
	depth := 0
	jsoncodectest.Filler(seed,
		func(tm *metav1.Time, c randfill.Continue) {
			zones := []*time.Location{time.UTC, time.FixedZone("east", 3600)}
			*tm = metav1.NewTime(time.Unix(c.Int63n(1<<20), 0).In(zones[c.Intn(2)]))
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(time.Unix(c.Int63n(1<<20), c.Int63n(1e9)).In(time.FixedZone("west", -3600)))
		},
		func(f *float64, c randfill.Continue) {
			if c.Intn(10) == 0 {
				*f = math.NaN()
			} else {
				*f = float64(c.Intn(3))
			}
		},
		func(n *v1.Node, c randfill.Continue) {
			depth++
			defer func() { depth-- }()
			if depth > 2 {
				n.Name = c.String(0)
				return
			}
			c.FillNoCustom(n)
		},
		func(h *v1.Hidden, c randfill.Continue) {
			h.Name = c.String(0)
			if c.Bool() {
				h.SetSecret([]string{})
			}
		},
	).Fill(obj)
}

// TestEqualityMatchesSemantic holds every generated function to equality.Semantic.DeepEqual.
func TestEqualityMatchesSemantic(t *testing.T) {
	const n = 150
	equalitytest.Check(t, v1.SemanticEqual_Shape, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Basics, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Inner, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Pointers, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Slices, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Maps, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Arrays, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Externals, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Interfaces, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Hidden, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Node, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Names, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Settings, n, fill)
	equalitytest.Check(t, v1.SemanticEqual_Grid, n, fill)
}

// TestEqualityEdgeCases checks the cases the brief names one by one, against both the
// expected answer and equality.Semantic.DeepEqual.
func TestEqualityEdgeCases(t *testing.T) {
	nan := math.NaN()
	shared := []float64{nan}
	sharedMap := map[string]float64{"a": nan}
	east := time.FixedZone("east", 3*3600)
	now := time.Unix(1700000000, 0)
	for _, tc := range []struct {
		name string
		a, b v1.Shape
		want bool
	}{
		{"nil and empty slice", v1.Shape{Slices: v1.Slices{Strings: nil}}, v1.Shape{Slices: v1.Slices{Strings: []string{}}}, true},
		{"nil and empty map", v1.Shape{Maps: v1.Maps{Inners: nil}}, v1.Shape{Maps: v1.Maps{Inners: map[string]v1.Inner{}}}, true},
		{"nil and empty named map", v1.Shape{Settings: nil}, v1.Shape{Settings: v1.Settings{}}, true},
		{"nil and empty nested slice", v1.Shape{Slices: v1.Slices{Nested: [][]string{nil}}}, v1.Shape{Slices: v1.Slices{Nested: [][]string{{}}}}, true},
		{"nil and non-nil pointer", v1.Shape{Pointers: v1.Pointers{Inner: nil}}, v1.Shape{Pointers: v1.Pointers{Inner: &v1.Inner{}}}, false},
		{"pointees equal", v1.Shape{Pointers: v1.Pointers{Inner: &v1.Inner{Tags: []string{}}}}, v1.Shape{Pointers: v1.Pointers{Inner: &v1.Inner{}}}, true},
		{"nested struct differs", v1.Shape{Tree: &v1.Node{Children: []v1.Node{{Name: "a"}}}}, v1.Shape{Tree: &v1.Node{Children: []v1.Node{{Name: "b"}}}}, false},
		{"1Gi and 1024Mi", v1.Shape{Externals: v1.Externals{Quantity: resource.MustParse("1Gi")}}, v1.Shape{Externals: v1.Externals{Quantity: resource.MustParse("1024Mi")}}, true},
		{"1Gi and 1G", v1.Shape{Externals: v1.Externals{Quantity: resource.MustParse("1Gi")}}, v1.Shape{Externals: v1.Externals{Quantity: resource.MustParse("1G")}}, false},
		{"zero and 0 quantity", v1.Shape{}, v1.Shape{Externals: v1.Externals{Quantity: resource.MustParse("0")}}, true},
		{"time in two locations", v1.Shape{Externals: v1.Externals{Time: metav1.NewTime(now)}}, v1.Shape{Externals: v1.Externals{Time: metav1.NewTime(now.In(east))}}, true},
		{"pointer to time in two locations", v1.Shape{Pointers: v1.Pointers{Time: &metav1.Time{Time: now}}}, v1.Shape{Pointers: v1.Pointers{Time: &metav1.Time{Time: now.In(east)}}}, true},
		{"map of structs, missing key", v1.Shape{Maps: v1.Maps{Inners: map[string]v1.Inner{"a": {}}}}, v1.Shape{Maps: v1.Maps{Inners: map[string]v1.Inner{"b": {}}}}, false},
		{"map of pointers, nil value and missing key", v1.Shape{Maps: v1.Maps{InnerPtrs: map[string]*v1.Inner{"a": nil}}}, v1.Shape{Maps: v1.Maps{InnerPtrs: map[string]*v1.Inner{"b": nil}}}, false},
		{"map of structs, equal", v1.Shape{Maps: v1.Maps{Inners: map[string]v1.Inner{"a": {Tags: nil}}}}, v1.Shape{Maps: v1.Maps{Inners: map[string]v1.Inner{"a": {Tags: []string{}}}}}, true},
		{"interface, int and int64", v1.Shape{Interfaces: v1.Interfaces{Any: 1}}, v1.Shape{Interfaces: v1.Interfaces{Any: int64(1)}}, false},
		{"interface, nil and empty map", v1.Shape{Interfaces: v1.Interfaces{Any: map[string]any(nil)}}, v1.Shape{Interfaces: v1.Interfaces{Any: map[string]any{}}}, true},
		{"interface, nil and typed nil", v1.Shape{Interfaces: v1.Interfaces{Any: nil}}, v1.Shape{Interfaces: v1.Interfaces{Any: map[string]any(nil)}}, false},
		{"external struct", v1.Shape{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}, v1.Shape{}, true},
		{"external struct differs", v1.Shape{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, v1.Shape{}, false},
		{"NaN", v1.Shape{Basics: v1.Basics{Float64: nan}}, v1.Shape{Basics: v1.Basics{Float64: nan}}, false},
		{"NaN in a shared slice", v1.Shape{Slices: v1.Slices{Floats: shared}}, v1.Shape{Slices: v1.Slices{Floats: shared}}, true},
		{"NaN in a shared map", v1.Shape{Maps: v1.Maps{Floats: sharedMap}}, v1.Shape{Maps: v1.Maps{Floats: sharedMap}}, true},
		{"NaN in two slices", v1.Shape{Slices: v1.Slices{Floats: []float64{nan}}}, v1.Shape{Slices: v1.Slices{Floats: []float64{nan}}}, false},
		{"NaN behind one pointer", v1.Shape{Pointers: v1.Pointers{Float64: &nan}}, v1.Shape{Pointers: v1.Pointers{Float64: &nan}}, false},
		{"arrays", v1.Shape{Arrays: v1.Arrays{Int32s: [2]int32{1, 2}}}, v1.Shape{Arrays: v1.Arrays{Int32s: [2]int32{1, 3}}}, false},
		{"named string", v1.Shape{Basics: v1.Basics{Engine: "a"}}, v1.Shape{Basics: v1.Basics{Engine: "b"}}, false},
	} {
		ref := equality.Semantic.DeepEqual(&tc.a, &tc.b)
		got := v1.SemanticEqual_Shape(&tc.a, &tc.b)
		if ref != tc.want || got != tc.want {
			t.Errorf("%s: generated %v, equality.Semantic.DeepEqual %v, want %v", tc.name, got, ref, tc.want)
		}
	}
	inner := &v1.Inner{Value: nan}
	a, b := v1.Shape{Pointers: v1.Pointers{Inner: inner}}, v1.Shape{Pointers: v1.Pointers{Inner: inner}}
	if got, ref := v1.SemanticEqual_Shape(&a, &b), equality.Semantic.DeepEqual(&a, &b); got != ref || !got {
		t.Errorf("NaN in one struct both point to: generated %v, equality.Semantic.DeepEqual %v, want true", got, ref)
	}
	h1, h2 := v1.Hidden{}, v1.Hidden{}
	h2.SetSecret([]string{})
	if !v1.SemanticEqual_Hidden(&h1, &h2) {
		t.Errorf("Hidden with nil and empty unexported slice: unequal")
	}
	// A value in an unexported field makes the reflection walk panic; the generated function,
	// which leaves such structs to it, panics alike.
	h2.SetSecret([]string{"x"})
	h3 := v1.Hidden{}
	h3.SetSecret([]string{"y"})
	if gen, ref := panics(func() { v1.SemanticEqual_Hidden(&h2, &h3) }), panics(func() { equality.Semantic.DeepEqual(&h2, &h3) }); gen != ref || !gen {
		t.Errorf("Hidden with values in its unexported field: generated panics %v, equality.Semantic.DeepEqual panics %v", gen, ref)
	}
}

// panics reports whether f panics.
func panics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

// TestFieldEqualMatchesSemantic runs the table zz_fieldequal_test.go: each expression
// equality.FieldEqual gives generated validation must answer as
// equality.Semantic.DeepEqual(obj, oldObj) on two fills of one seed, fills of two seeds, a
// fill and its mutations, and with no old object.
func TestFieldEqualMatchesSemantic(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for seed := range int64(150) {
		a, same, other, mutated := &v1.Shape{}, &v1.Shape{}, &v1.Shape{}, &v1.Shape{}
		fill(seed, a)
		fill(seed, same)
		fill(seed+1000, other)
		fill(seed, mutated)
		what := equalitytest.Mutate(r, mutated)
		for _, fe := range fieldEquals {
			for _, tc := range []struct {
				name string
				b    *v1.Shape
			}{{"same seed", same}, {"other seed", other}, {"mutated " + what, mutated}, {"no old object", nil}, {"itself", a}} {
				if got, want := fe.eq(a, tc.b); got != want {
					t.Errorf("%s, %s (seed %d): FieldEqual's expression %v, equality.Semantic.DeepEqual %v", fe.path, tc.name, seed, got, want)
				}
			}
		}
	}
}

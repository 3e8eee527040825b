// Package equalitytest holds generated SemanticEqual_T functions (generators/equality) to the
// reference they replace, k8s.io/apimachinery's equality.Semantic.DeepEqual, on random values,
// their copies, values sharing memory with them and mutations of one field.
package equalitytest

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Check compares gen, a generated SemanticEqual_T, with equality.Semantic.DeepEqual(a, b) on
// n seeds. fill must fill obj deterministically from seed (two calls with one seed give equal
// values in distinct memory). For each seed it compares: two fills of the seed; a value with
// itself; fills of two seeds; a value with a shallow copy sharing its slices, maps and
// pointers; and a fill with a fill changed at one random place (a basic value changed, a
// slice or map made nil, empty, shorter or with one entry fewer or zeroed, a pointer or
// interface set or cleared, a time moved to another location or instant, a quantity
// rewritten in another format or changed). It also compares nil pointers. Each disagreement
// is reported with both values, at most a few per call. Under go test -short it takes the
// first quarter of the n seeds (at least one), as jsoncodectest.CheckPackage takes a tenth of
// its round trips: the comparisons are most of the CPU of the packages that call Check, and
// make test takes all n.
func Check[T any](t testing.TB, gen func(a, b *T) bool, n int, fill func(seed int64, obj *T)) {
	t.Helper()
	seeds := n
	if testing.Short() {
		seeds = max(n/4, 1)
	}
	failures := 0
	compare := func(what string, a, b *T) {
		t.Helper()
		if failures > 5 {
			return
		}
		want := equality.Semantic.DeepEqual(a, b)
		if got := gen(a, b); got != want {
			failures++
			t.Errorf("%T %s: generated %v, equality.Semantic.DeepEqual %v\na: %#v\nb: %#v", a, what, got, want, a, b)
		}
	}
	var zero T
	compare("nil, nil", nil, nil)
	compare("nil, zero", nil, &zero)
	compare("zero, nil", &zero, nil)
	for seed := int64(0); seed < int64(seeds); seed++ {
		a, b := new(T), new(T)
		fill(seed, a)
		fill(seed, b)
		compare("two fills of one seed", a, b)
		compare("itself", a, a)
		other := new(T)
		fill(seed+int64(n), other)
		compare("two seeds", a, other)
		shallow := *a
		compare("shallow copy", a, &shallow)
		r := rand.New(rand.NewSource(seed))
		for range 8 {
			m := new(T)
			fill(seed, m)
			if what := Mutate(r, m); what != "" {
				compare("mutated "+what, a, m)
				compare("mutated "+what+" (swapped)", m, a)
			}
		}
	}
}

// Mutate changes obj, a pointer to a struct, at one random settable place reached through
// exported fields, pointers, slices and arrays, and returns what it did ("" when it found
// nothing to change). See Check for the changes.
func Mutate(r *rand.Rand, obj any) string {
	var sites []reflect.Value
	collect(reflect.ValueOf(obj).Elem(), &sites)
	for range 20 {
		if len(sites) == 0 {
			return ""
		}
		v := sites[r.Intn(len(sites))]
		if what := mutate(r, v); what != "" {
			return v.Type().String() + ": " + what
		}
	}
	return ""
}

// collect appends every settable value at or below v.
func collect(v reflect.Value, out *[]reflect.Value) {
	if !v.CanSet() {
		return
	}
	*out = append(*out, v)
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			collect(v.Elem(), out)
		}
	case reflect.Struct:
		if v.Type() == timeType || v.Type() == quantityType {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				collect(v.Field(i), out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			collect(v.Index(i), out)
		}
	}
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	metaTimeType = reflect.TypeFor[metav1.Time]()
	quantityType = reflect.TypeFor[resource.Quantity]()
	locations    = []*time.Location{time.UTC, time.FixedZone("east", 3*3600), time.FixedZone("west", -5*3600)}
)

// mutate changes v and says how, or returns "" when it does not change values of v's kind.
func mutate(r *rand.Rand, v reflect.Value) string {
	switch v.Type() {
	case timeType, metaTimeType:
		tv := v
		if v.Type() == metaTimeType {
			tv = v.Field(0)
		}
		tm := tv.Interface().(time.Time)
		if r.Intn(2) == 0 {
			tv.Set(reflect.ValueOf(tm.In(locations[r.Intn(len(locations))])))
			return "same instant, another location"
		}
		tv.Set(reflect.ValueOf(tm.Add(time.Second)))
		return "one second later"
	case quantityType:
		q := v.Addr().Interface().(*resource.Quantity)
		switch r.Intn(3) {
		case 0:
			*q = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
			return "same value, decimal"
		case 1:
			*q = *resource.NewMilliQuantity(q.MilliValue(), resource.BinarySI)
			return "same value, binary"
		}
		*q = *resource.NewMilliQuantity(q.MilliValue()+1, q.Format)
		return "one milli more"
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
		return "flipped"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
		return "plus one"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(v.Uint() + 1)
		return "plus one"
	case reflect.Float32, reflect.Float64:
		if r.Intn(2) == 0 {
			v.SetFloat(math.NaN())
			return "NaN"
		}
		v.SetFloat(v.Float() + 1)
		return "plus one"
	case reflect.String:
		if v.Len() > 0 && r.Intn(2) == 0 {
			v.SetString("")
			return "emptied"
		}
		v.SetString(v.String() + "x")
		return "appended x"
	case reflect.Slice:
		switch {
		case v.IsNil():
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return "nil to empty"
		case v.Len() == 0:
			v.Set(reflect.Zero(v.Type()))
			return "empty to nil"
		case r.Intn(2) == 0:
			v.Set(reflect.Zero(v.Type()))
			return "set to nil"
		}
		v.Set(v.Slice(0, v.Len()-1))
		return "last element dropped"
	case reflect.Map:
		switch {
		case v.IsNil():
			v.Set(reflect.MakeMap(v.Type()))
			return "nil to empty"
		case v.Len() == 0:
			v.Set(reflect.Zero(v.Type()))
			return "empty to nil"
		}
		m := reflect.MakeMap(v.Type())
		keys := v.MapKeys()
		victim := keys[r.Intn(len(keys))]
		zero := r.Intn(2) == 0
		for _, k := range keys {
			switch {
			case k.Interface() != victim.Interface():
				m.SetMapIndex(k, v.MapIndex(k))
			case zero:
				m.SetMapIndex(k, reflect.Zero(v.Type().Elem()))
			}
		}
		v.Set(m)
		if zero {
			return "one entry zeroed"
		}
		return "one entry deleted"
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			return "nil to new"
		}
		v.Set(reflect.Zero(v.Type()))
		return "set to nil"
	case reflect.Interface:
		if v.IsNil() {
			if !reflect.TypeFor[string]().AssignableTo(v.Type()) {
				return ""
			}
			v.Set(reflect.ValueOf("x"))
			return "nil to x"
		}
		v.Set(reflect.Zero(v.Type()))
		return "set to nil"
	}
	return ""
}

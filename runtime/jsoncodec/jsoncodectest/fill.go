package jsoncodectest

import (
	"fmt"
	"math/rand"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// Filler returns a randfill.Filler seeded with seed for API objects: nil chance 0.2, up to 3
// elements per slice or map, depth at most 12 (recursive schemas stay small), and fill
// functions for the apimachinery types whose random values encoding/json could not write or
// read back (Quantity, IntOrString, RawExtension, FieldsV1) and for interface{} values (JSON
// values: maps, slices, strings, integers, floats, booleans, nil). funcs are added last
// (randfill.Filler.Funcs), e.g. for a group's own types with JSON methods.
func Filler(seed int64, funcs ...any) *randfill.Filler {
	f := randfill.New().RandSource(rand.NewSource(seed)).NilChance(0.2).NumElements(0, 3).MaxDepth(12)
	return f.Funcs(append([]any{
		func(q *resource.Quantity, c randfill.Continue) {
			formats := []resource.Format{resource.DecimalSI, resource.BinarySI, resource.DecimalExponent}
			*q = *resource.NewMilliQuantity(c.Int63n(1<<40)-1<<39, formats[c.Intn(len(formats))])
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(c.String(0))
			}
		},
		func(e *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				e.Raw = []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":%q,"n":%d}`, c.String(0), c.Int63()))
			}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			f.SetRawString(fmt.Sprintf(`{"f:metadata":{"f:labels":{%q:{}}}}`, "f:"+c.String(0)))
		},
		func(t *time.Time, c randfill.Continue) {
			*t = time.Unix(c.Int63n(1<<35), c.Int63n(1e9))
		},
		func(v *any, c randfill.Continue) { *v = jsonValue(c, 0) },
	}, funcs...)...)
}

// jsonValue returns a random value of what sigs.k8s.io/json decodes into an interface{}.
func jsonValue(c randfill.Continue, depth int) any {
	switch n := c.Intn(8); {
	case n == 0 && depth < 3:
		m := map[string]any{}
		for i := c.Intn(3); i > 0; i-- {
			m[c.String(0)] = jsonValue(c, depth+1)
		}
		return m
	case n == 1 && depth < 3:
		s := []any{}
		for i := c.Intn(3); i > 0; i-- {
			s = append(s, jsonValue(c, depth+1))
		}
		return s
	case n == 2:
		return c.String(0)
	case n == 3:
		return c.Int63() - 1<<62
	case n == 4:
		return c.Float64() * 1e6
	case n == 5:
		return c.Bool()
	case n == 6:
		return nil
	}
	return c.String(0)
}

package v1_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	v1 "github.com/apigen-dev/apigen/generators/jsoncodec/testdata/shapes/v1"
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

const pkgPath = "github.com/apigen-dev/apigen/generators/jsoncodec/testdata/shapes/v1"

// filler fills the shapes at random; recursive types stop one level down, numbers and raw
// messages are valid JSON most of the time.
func filler(seed int64) *randfill.Filler {
	depth := 0
	return jsoncodectest.Filler(seed,
		func(c *v1.Composite, fc randfill.Continue) {
			depth++
			defer func() { depth-- }()
			if depth > 1 {
				c.Slice = []string{fc.String(0)}
				return
			}
			fc.FillNoCustom(c)
		},
		func(tr *v1.Tree, fc randfill.Continue) {
			*tr = v1.Tree{fc.String(0): nil, fc.String(0): v1.Tree{}}
		},
		func(n *json.Number, fc randfill.Continue) {
			*n = []json.Number{"1", "-2.5e3", "0.125", "", "x1"}[fc.Intn(5)]
		},
		func(m *json.RawMessage, fc randfill.Continue) {
			*m = []json.RawMessage{nil, json.RawMessage(`{ "a" : [1, 2] }`), json.RawMessage(`"<&>"`), json.RawMessage(`{`)}[fc.Intn(4)]
		},
	)
}

// TestJSONCodecs holds every generated codec to the reference libraries on 300 random
// objects of each type.
func TestJSONCodecs(t *testing.T) {
	jsoncodectest.CheckPackage(t, pkgPath, 300, filler(1))
}

// TestEdgeValues checks values random filling seldom reaches.
func TestEdgeValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	empty := ""
	emptyPtr := &empty
	for i, obj := range []any{
		&v1.Empty{Float64: negZero, Float32: float32(negZero), ZeroFloat: negZero},
		&v1.Empty{Slice: []string{}, Map: map[string]string{}, ZeroSlice: []string{}, Both: []string{}, Any: 0, Pointer: new(int32)},
		&v1.Empty{ZeroTime: metav1.Unix(1, 0), ZeroPtr: &metav1.Time{}},
		&v1.Basics{Float64: math.NaN()},
		&v1.Basics{Float32: float32(math.Inf(1))},
		&v1.Basics{Float64: 1e21, Float32: 1e-7, Ratio: 1e20},
		&v1.Basics{Float64: 1e-7, Float32: 1e21, Ratio: 3.4028235e38},
		&v1.Basics{Float64: 123456789.125, Float32: 0.1},
		&v1.Basics{Int64: math.MinInt64, Uint64: math.MaxUint64, Int8: -128, Uint8: 255, Int: math.MaxInt},
		&v1.Basics{String: "<a href=\"x\">&amp;</a>\u2028\u2029\x00\x1f\t\n\\", Engine: "\xff\xfeinvalid", HTML: "é€😀"},
		&v1.Composite{Slice: []string{}, Slices: [][]int32{nil, {}}, Map: map[string]int64{}, Maps: map[string]map[string]string{"a": nil, "b": {}},
			MapPointers: map[string]*v1.Basics{"nil": nil}, Bytes: []byte{}, Raw: v1.Raw("raw"), Names: v1.Names{}, Labels: v1.Labels{},
			LabelsPointer: &v1.Labels{}, Tree: v1.Tree{"a": {"b": nil}}, PointerPointer: &emptyPtr, Anys: []any{nil, 1.5, "x", map[string]any{}}},
		&v1.Methods{PtrMap: map[string]v1.PtrMarshal{"a": {N: -1}}},
		&v1.Methods{Ptr: v1.PtrMarshal{N: -1}},
		&v1.Methods{HoldsMap: map[string]v1.HoldsPtrMarshal{"a": {Value: v1.PtrMarshal{N: 3}}}, PtrSlice: []v1.PtrMarshal{{N: 4}}},
		&v1.Methods{RawMessage: json.RawMessage("{ \"a\" :\n 1 }"), Number: "12"},
		&v1.Fallback{Hidden: v1.Hidden{Visible: "v"}, Own: v1.Own{A: "<"}, Stamp: v1.Stamp{Note: "n"}},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) { jsoncodectest.Check(t, obj) })
	}
}

// TestDocuments decodes documents encoding/json never writes: the fast path may refuse them
// but must not decode them differently.
func TestDocuments(t *testing.T) {
	for _, doc := range []string{
		`{"basics":{"int8":128}}`, `{"basics":{"int8":-128,"uint8":256}}`, `{"basics":{"int":1.0}}`, `{"basics":{"int":1e2}}`,
		`{"basics":{"float32":1e39}}`, `{"basics":{"uint":-1}}`, `{"basics":{"bool":"true"}}`, `{"basics":{"string":1}}`,
		`{"basics":{"\u0073tring":"escaped key"}}`, `{"basics":{"String":"case"}}`, `{"basics":{"string":"\ud800"}}`,
		`{"basics":null,"empty":null,"composite":null}`, `{"composite":{"slice":[],"map":{},"pointer":null}}`,
		`{"composite":{"map":{"a":1,"a":2}}}`, `{"composite":{"slices":[[1],null,[]]}}`, `{"composite":{"mapStructs":{"a":null}}}`,
		`{"composite":{"mapPointers":{"a":null,"b":{}}}}`, `{"composite":{"engineKeys":{"x":1.5}}}`, `{"composite":{"intKeys":{"1":"a"}}}`,
		`{"composite":{"bytes":"aGk=","raw":"aGk="}}`, `{"composite":{"any":{"a":[1,2.5,"x",null,true]}}}`,
		`{"composite":{"inlineString":"x","named":{"inlineString":"y"}}}`, `{"composite":{"labelsPointer":null,"tree":{"a":{"b":{}}}}}`,
		`{"methods":{"time":null,"timePointer":null,"ptr":null,"ptrPointer":null,"level":"3","levelKeys":{"1":"a"}}}`,
		`{"methods":{"time":"2024-01-01T00:00:00Z","quantity":"1Gi","intOrString":"50%","number":1.5,"rawMessage":{"a":1}}}`,
		`{"methods":{"ptr":"7","ptrMap":{"a":"8"},"holdsMap":{"a":{"value":"9"}}}}`,
		`{"fallback":{"stringly":{"count":"12"},"hidden":{"secret":"s","visible":"v"},"own":"o","stamp":"2024-01-01T00:00:00Z"}}`,
		`{"kind":"Shape","kind":"Shape"}`, `{"metadata":{"name":"a","creationTimestamp":null}}`, ` {"kind" : "Shape" } `,
		`{"kind":"Shape",}`, `{"kind":"Shape"`, `[]`, `null`, `{"kind":"Shape"}x`, `{"basics":{"int":01}}`,
	} {
		jsoncodectest.CheckDecode(t, []byte(doc), &v1.Shape{}, false)
	}
	jsoncodectest.CheckDecode(t, []byte(`{"composite":{"slice":[],"map":{}},"basics":{"\u0073tring":"<"}}`), &v1.Shape{}, true)
}

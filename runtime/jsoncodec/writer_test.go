package jsoncodec

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// stringSeeds are strings every escaping rule of encoding/json applies to.
var stringSeeds = []string{
	"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"héllo wörld ✓ 𝄞", "\u2028 and \u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate", "trailing \xe2\x80",
}

func FuzzWriterString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var w Writer
		w.String(s)
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if string(w.Bytes()) != string(want) {
			t.Errorf("String(%q) wrote %s, encoding/json writes %s", s, w.Bytes(), want)
		}
	})
}

func TestWriterNumbers(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, -2.5e-9,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 3.4028234663852886e38, 1.401298464324817e-45}
	for _, f := range floats {
		var w Writer
		w.Float(f, 64)
		if want, _ := json.Marshal(f); string(w.Bytes()) != string(want) {
			t.Errorf("Float(%v, 64) = %s, encoding/json writes %s", f, w.Bytes(), want)
		}
		f32 := float32(f)
		w.Reset()
		w.Float(float64(f32), 32)
		if want, _ := json.Marshal(f32); string(w.Bytes()) != string(want) {
			t.Errorf("Float(%v, 32) = %s, encoding/json writes %s", f32, w.Bytes(), want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		var w Writer
		if w.Float(bad, 64); !w.Failed() {
			t.Errorf("Float(%v) did not fail; encoding/json refuses it", bad)
		}
	}
	for _, v := range []int64{0, -1, math.MaxInt64, math.MinInt64} {
		var w Writer
		if w.Int(v); string(w.Bytes()) != mustJSON(t, v) {
			t.Errorf("Int(%d) = %s", v, w.Bytes())
		}
	}
	var w Writer
	if w.Uint(math.MaxUint64); string(w.Bytes()) != mustJSON(t, uint64(math.MaxUint64)) {
		t.Errorf("Uint(max) = %s", w.Bytes())
	}
}

// failingMarshaler's MarshalJSON fails or returns what it holds.
type failingMarshaler struct {
	out []byte
	err error
}

func (m failingMarshaler) MarshalJSON() ([]byte, error) { return m.out, m.err }

func TestWriterMarshaler(t *testing.T) {
	ts := metav1.NewTime(time.Date(2026, 11, 23, 18, 4, 5, 0, time.UTC))
	for name, m := range map[string]json.Marshaler{
		"time":           ts,
		"zero time":      metav1.Time{},
		"raw with space": runtime.RawExtension{Raw: []byte("{ \"a\" : [1, 2],\n \"h\": \"<&>\" }")},
		"raw string":     runtime.RawExtension{Raw: []byte(`"\u003c ok"`)},
		"raw 2028":       runtime.RawExtension{Raw: []byte("\"x\u2028y\"")},
	} {
		var w Writer
		w.Marshaler(m)
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if w.Failed() || string(w.Bytes()) != string(want) {
			t.Errorf("%s: Marshaler wrote %s (failed %v), encoding/json writes %s", name, w.Bytes(), w.Failed(), want)
		}
	}
	for name, m := range map[string]json.Marshaler{
		"error":   failingMarshaler{err: errors.New("no")},
		"invalid": failingMarshaler{out: []byte("{")},
	} {
		var w Writer
		if w.Marshaler(m); !w.Failed() {
			t.Errorf("%s: Marshaler did not fail", name)
		}
		if _, err := json.Marshal(m); err == nil {
			t.Errorf("%s: encoding/json accepts it, the test is wrong", name)
		}
	}
}

func TestWriterKeysAndValue(t *testing.T) {
	m := map[string]int{"b": 2, "a<": 1, "": 0, "é": 3, "A": 4}
	var w Writer
	w.Byte('{')
	more := false
	keys := SortedKeysIn(&w, m)
	for _, k := range keys {
		w.Key(&more, k)
		w.Int(int64(m[k]))
	}
	ReleaseKeys(&w, keys)
	w.Field(&more, `"ü":`)
	w.Value([]any{"x", 1.5, nil, map[string]bool{"t": true}})
	w.Byte('}')
	m2 := map[string]any{"b": 2, "a<": 1, "": 0, "é": 3, "A": 4, "ü": []any{"x", 1.5, nil, map[string]bool{"t": true}}}
	if want := mustJSON(t, m2); string(w.Bytes()) != want {
		t.Errorf("got %s, encoding/json writes %s", w.Bytes(), want)
	}
	w.Reset()
	if w.Value(math.NaN()); !w.Failed() {
		t.Error("Value(NaN) did not fail")
	}
	w.Reset()
	if w.Failed() || len(w.Bytes()) != 0 {
		t.Error("Reset did not clear the Writer")
	}
}

// TestSortedKeysIn: a map of maps written with SortedKeysIn and ReleaseKeys, as generated
// encoders write maps, comes out as encoding/json writes it, leaves the Writer's scratch
// space empty, and, once a Writer has held as many keys, allocates nothing.
func TestSortedKeysIn(t *testing.T) {
	type label string
	m := map[label]map[string]int{"b": {"y": 1, "x": 2}, "a": {}, "c": {"z": 3}, "é": nil}
	write := func(w *Writer) {
		w.Byte('{')
		more0 := false
		keys0 := SortedKeysIn(w, m)
		for _, key0 := range keys0 {
			w.Key(&more0, string(key0))
			val0 := m[key0]
			if val0 == nil {
				w.Raw("null")
				continue
			}
			w.Byte('{')
			more1 := false
			keys1 := SortedKeysIn(w, val0)
			for _, key1 := range keys1 {
				w.Key(&more1, key1)
				w.Int(int64(val0[key1]))
			}
			ReleaseKeys(w, keys1)
			w.Byte('}')
		}
		ReleaseKeys(w, keys0)
		w.Byte('}')
	}
	var w Writer
	write(&w)
	if want := mustJSON(t, m); string(w.Bytes()) != want {
		t.Errorf("got %s, encoding/json writes %s", w.Bytes(), want)
	}
	if len(w.keys) != 0 {
		t.Errorf("the Writer holds keys %q after the last ReleaseKeys, want none", w.keys)
	}
	if allocs := testing.AllocsPerRun(100, func() { w.Reset(); write(&w) }); allocs != 0 {
		t.Errorf("writing the map again allocated %v times, want 0", allocs)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

package jsoncodec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

func FuzzReaderString(f *testing.F) {
	for _, s := range stringSeeds {
		quoted, _ := json.Marshal(s)
		f.Add(quoted)
		f.Add([]byte(`"` + s + `"`))
	}
	f.Add([]byte(`"\ud834\udd1e \u00e9 \/ \"x\" \ud800"`))
	f.Add([]byte(`"unterminated`))
	f.Add([]byte(`"bad \q escape"`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r := NewReader(doc)
		got := r.Str()
		ok := r.Done()
		var want string
		err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &want)
		if !ok {
			return // off the fast path: the reference decode decides
		}
		if err != nil {
			t.Fatalf("Reader accepted %q as %q; the reference refuses it: %v", doc, got, err)
		}
		if got != want {
			t.Errorf("Reader read %q as %q, the reference as %q", doc, got, want)
		}
	})
}

// numberTarget is a typed destination for one number literal.
type numberTarget struct {
	name string
	read func(r *Reader) any
	ref  func() any // a new pointer the reference decodes into
}

var numberTargets = []numberTarget{
	{"int8", func(r *Reader) any { return int8(r.Int(8)) }, func() any { return new(int8) }},
	{"int16", func(r *Reader) any { return int16(r.Int(16)) }, func() any { return new(int16) }},
	{"int32", func(r *Reader) any { return int32(r.Int(32)) }, func() any { return new(int32) }},
	{"int64", func(r *Reader) any { return r.Int(64) }, func() any { return new(int64) }},
	{"uint8", func(r *Reader) any { return uint8(r.Uint(8)) }, func() any { return new(uint8) }},
	{"uint32", func(r *Reader) any { return uint32(r.Uint(32)) }, func() any { return new(uint32) }},
	{"uint64", func(r *Reader) any { return r.Uint(64) }, func() any { return new(uint64) }},
	{"float32", func(r *Reader) any { return float32(r.Float(32)) }, func() any { return new(float32) }},
	{"float64", func(r *Reader) any { return r.Float(64) }, func() any { return new(float64) }},
	{"bool", func(r *Reader) any { return r.Bool() }, func() any { return new(bool) }},
}

var numberSeeds = []string{
	"0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "2147483647", "2147483648",
	"-2147483649", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
	"1.0", "1.5", "-0.0", "1e3", "1E+3", "1e-3", "01", "+1", "-", "1.", ".5", "1e", "0x10", "3.4028235e38",
	"3.5e38", "1e309", "4.9e-324", " 7 ", "true", "false", "null", `"1"`, "1 2", "[1]", "tru", "nul",
}

func FuzzReaderNumber(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		for _, target := range numberTargets {
			r := NewReader([]byte(doc))
			got := target.read(r)
			if !r.Done() {
				continue
			}
			want := target.ref()
			if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(doc), want); err != nil {
				t.Errorf("%s: Reader accepted %q as %v; the reference refuses it: %v", target.name, doc, got, err)
				continue
			}
			if w := reflect.ValueOf(want).Elem().Interface(); !reflect.DeepEqual(got, w) {
				t.Errorf("%s: Reader read %q as %v, the reference as %v", target.name, doc, got, w)
			}
		}
	})
}

func TestReaderNumbersAcceptTheCommonCases(t *testing.T) {
	r := NewReader([]byte(`[0,-5,2147483647,1.5e3,true,null]`))
	var got []string
	r.Array()
	for i := 0; r.Elem(i); i++ {
		switch i {
		case 0, 1, 2:
			got = append(got, strconv.FormatInt(r.Int(32), 10))
		case 3:
			got = append(got, strconv.FormatFloat(r.Float(64), 'g', -1, 64))
		case 4:
			got = append(got, strconv.FormatBool(r.Bool()))
		case 5:
			got = append(got, strconv.FormatBool(r.Null()))
		}
	}
	if want := []string{"0", "-5", "2147483647", "1500", "true", "true"}; !reflect.DeepEqual(got, want) || !r.Done() {
		t.Errorf("read %v (failed %v), want %v", got, r.Failed(), want)
	}
}

func TestReaderStructure(t *testing.T) {
	// readObject reads an object of string members into a map with the Reader's primitives.
	readObject := func(doc string) (map[string]string, bool) {
		r := NewReader([]byte(doc))
		if r.Null() {
			return nil, r.Done()
		}
		out := map[string]string{}
		if !r.Object() {
			return nil, false
		}
		for n := 0; r.Member(n); n++ {
			out[r.KeyString()] = r.Str()
		}
		return out, r.Done()
	}
	for doc, want := range map[string]map[string]string{
		`{}`:                          {},
		` { "a" : "x" , "b":"y" } `:   {"a": "x", "b": "y"},
		"{\n\t\"\\u0061\\n\":\"\"\r}": {"a\n": ""},
		`null`:                        nil,
	} {
		got, ok := readObject(doc)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %v (ok %v), want %v", doc, got, ok, want)
		}
	}
	for _, doc := range []string{`{`, `{,}`, `{"a":"x",}`, `{"a":"x" "b":"y"}`, `{"a" "x"}`, `{"a":1}`, `{a:"x"}`,
		`{"a":"x"}}`, `{"a":"x"} x`, `[]`, ``, `nul`, "{\"a\":\"\x01\"}"} {
		if got, ok := readObject(doc); ok {
			t.Errorf("%s: read %v, want the fast path to fail", doc, got)
		}
	}
	// Arrays: trailing commas and missing commas fail.
	for doc, ok := range map[string]bool{`[]`: true, `[ "a" , "b" ]`: true, `["a",]`: false, `["a" "b"]`: false, `[,"a"]`: false} {
		r := NewReader([]byte(doc))
		r.Array()
		for i := 0; r.Elem(i); i++ {
			_ = r.Str()
		}
		if r.Done() != ok {
			t.Errorf("%s: Done() = %v, want %v", doc, !ok, ok)
		}
	}
}

func TestReaderRawUnmarshalerAndValue(t *testing.T) {
	doc := []byte(` {"t": "2026-11-23T18:04:05Z", "n": null, "v": {"a": [1, 2.5, "x", {"b": null}]}, "u": {"c": 1} } `)
	r := NewReader(doc)
	var ts, nullTime metav1.Time
	var v any
	var unknown struct{ D int }
	r.Object()
	for n := 0; r.Member(n); n++ {
		switch string(r.Key()) {
		case "t":
			r.Unmarshaler(&ts)
		case "n":
			nullTime = metav1.NewTime(time.Now())
			r.Unmarshaler(&nullTime)
		case "v":
			r.Value(&v)
		case "u":
			r.Value(&unknown)
		}
	}
	if !r.Failed() {
		t.Fatal("an unknown field inside a reflectively decoded value did not fail the Reader")
	}
	r = NewReader(doc[:len(doc)-len(`, "u": {"c": 1} } `)])
	r.data = append(append([]byte(nil), r.data...), '}')
	r.Object()
	for n := 0; r.Member(n); n++ {
		switch string(r.Key()) {
		case "t":
			r.Unmarshaler(&ts)
		case "n":
			r.Unmarshaler(&nullTime)
		case "v":
			r.Value(&v)
		}
	}
	if !r.Done() {
		t.Fatalf("Reader failed on %s", r.data)
	}
	if want := time.Date(2026, 11, 23, 18, 4, 5, 0, time.UTC); !ts.Time.Equal(want) || !nullTime.IsZero() {
		t.Errorf("times: %v, %v", ts, nullTime)
	}
	want := map[string]any{"a": []any{int64(1), 2.5, "x", map[string]any{"b": nil}}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("Value read %#v, want %#v (ints preserved as int64)", v, want)
	}
	for _, bad := range []string{`[1,2`, `{"a":}`, `tru`, `"x`, `1.`, `]`} {
		r := NewReader([]byte(bad))
		if raw := r.Raw(); !r.Failed() {
			t.Errorf("Raw accepted %q as %q", bad, raw)
		}
	}
}

// point has a hand-written codec registered in TestRegistry.
type point struct {
	X, Y int64
}

func encodePoint(w *Writer, in *point) {
	more := false
	w.Byte('{')
	w.Field(&more, `"X":`)
	w.Int(in.X)
	w.Field(&more, `"Y":`)
	w.Int(in.Y)
	w.Byte('}')
}

func decodePoint(r *Reader, out *point) {
	if r.Null() || !r.Object() {
		return
	}
	for n := 0; r.Member(n); n++ {
		switch string(r.Key()) {
		case "X":
			out.X = r.Int(64)
		case "Y":
			out.Y = r.Int(64)
		default:
			r.Fail()
			return
		}
	}
}

func TestRegistry(t *testing.T) {
	Register(encodePoint, decodePoint)
	p := &point{X: 1, Y: math.MinInt64}
	if !Registered(p) || Registered(point{}) || Registered(&struct{ point }{}) {
		t.Fatal("Registered: want *point only")
	}
	out, ok := Marshal([]byte("prefix:"), p)
	if want := "prefix:" + mustJSON(t, p); !ok || string(out) != want {
		t.Errorf("Marshal = %s, %v; want %s", out, ok, want)
	}
	var got point
	if !Unmarshal([]byte(`{"X":1,"Y":-9223372036854775808}`), &got) || got != *p {
		t.Errorf("Unmarshal read %+v", got)
	}
	for _, doc := range []string{`{"X":1,"Y":2} trailing`, `{"X":1,"Z":2}`, `{"X":1.5}`} {
		got := point{}
		if Unmarshal([]byte(doc), &got) || got != (point{}) {
			t.Errorf("Unmarshal(%s) = true or left %+v; want false and a zero point", doc, got)
		}
	}
	if _, ok := Marshal(nil, &struct{ A int }{}); ok {
		t.Error("Marshal of an unregistered type reported ok")
	}
	// Value and Reader.Value use the registry too.
	var w Writer
	w.Value(p)
	var back point
	r := NewReader(w.Bytes())
	if r.Value(&back); !r.Done() || back != *p {
		t.Errorf("Value round trip: %s -> %+v", w.Bytes(), back)
	}
}

func TestReaderLen(t *testing.T) {
	for doc, want := range map[string]int{
		`{}`: 0, `{ }`: 0, `[]`: 0, `[ 1 ]`: 1, `{"a":1}`: 1, `{"a":"x,y","b":{"c":[1,2]},"d":[{},{}]}`: 3,
		`["a\"]", "b", 3, null]`: 4, ` { "k" : "}" } `: 1,
	} {
		r := NewReader([]byte(doc))
		if doc[len(doc)-1] == ']' || doc[0] == '[' {
			r.Array()
		} else {
			r.Object()
		}
		pos := r.pos
		if got := r.Len(); got != want || r.pos != pos {
			t.Errorf("Len of %s = %d (moved %d), want %d", doc, got, r.pos-pos, want)
		}
	}
}

// FuzzReaderRaw: Raw accepts a document exactly when encoding/json.Valid does, returning it
// without its surrounding whitespace, and what it returns from any input is one valid value.
func FuzzReaderRaw(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		raw := r.Raw()
		if !r.Failed() && !json.Valid(raw) {
			t.Fatalf("Raw read %q from %q: not one JSON value", raw, data)
		}
		if !json.Valid(data) {
			return
		}
		if r.Failed() || !bytes.Equal(raw, bytes.TrimSpace(data)) || !r.Done() {
			t.Fatalf("Raw of the valid %q: %q (failed %v)", data, raw, r.Failed())
		}
	})
}

// BenchmarkReaderRaw measures Raw on the field set of a managedFields entry of about 1 KB
// (metav1.FieldsV1, which every decode of a stored object reads through Raw).
func BenchmarkReaderRaw(b *testing.B) {
	var fields bytes.Buffer
	fields.WriteString(`{"f:spec":{".":{},"f:engine":{},"f:parameters":{".":{}`)
	for i := range 40 {
		fmt.Fprintf(&fields, `,"f:p%03d":{}`, i)
	}
	fields.WriteString(`}}}`)
	doc := fields.Bytes()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r := NewReader(doc)
		if raw := r.Raw(); len(raw) != len(doc) || r.Failed() {
			b.Fatalf("Raw read %q", raw)
		}
	}
}

// label is a registered type holding a string, for TestUnmarshalTransient.
type label struct{ Name string }

func decodeLabel(r *Reader, out *label) {
	if r.Null() || !r.Object() {
		return
	}
	for n := 0; r.Member(n); n++ {
		if string(r.Key()) != "name" {
			r.Fail()
			return
		}
		out.Name = r.Str()
	}
}

func encodeLabel(w *Writer, in *label) {
	more := false
	w.Byte('{')
	w.Field(&more, `"name":`)
	w.String(in.Name)
	w.Byte('}')
}

// TestUnmarshalTransient: UnmarshalTransient reads what Unmarshal reads, its strings in the
// document's own bytes (Unmarshal's are a copy), and fails as Unmarshal does.
func TestUnmarshalTransient(t *testing.T) {
	Register(encodeLabel, decodeLabel)
	data := []byte(`{"name":"db-1"}`)
	inData := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		return p >= start && p < start+uintptr(len(data))
	}
	var transient, copied label
	if !UnmarshalTransient(data, &transient) || !Unmarshal(data, &copied) || transient != copied || transient.Name != "db-1" {
		t.Fatalf("UnmarshalTransient read %+v, Unmarshal %+v; want both db-1", transient, copied)
	}
	if !inData(transient.Name) || inData(copied.Name) {
		t.Errorf("UnmarshalTransient's string in the document: %v, Unmarshal's: %v; want true and false", inData(transient.Name), inData(copied.Name))
	}
	failed := label{}
	if UnmarshalTransient([]byte(`{"name":"x","other":1}`), &failed) || failed != (label{}) {
		t.Errorf("UnmarshalTransient of an unknown member = true or left %+v; want false and a zero label", failed)
	}
	if UnmarshalTransient(data, &struct{ A int }{}) {
		t.Error("UnmarshalTransient of an unregistered type reported ok")
	}
}

package jsoncodectest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// sample and sloppy have hand-written codecs: sample's is right, sloppy's decoder ignores
// unknown members and its encoder drops B.
type (
	sample struct {
		A string  `json:"a"`
		B []int64 `json:"b,omitempty"`
	}
	sloppy sample
)

func encodeSample(w *jsoncodec.Writer, in *sample) {
	w.Raw(`{"a":`)
	w.String(in.A)
	if len(in.B) != 0 {
		w.Raw(`,"b":[`)
		for i, v := range in.B {
			if i > 0 {
				w.Byte(',')
			}
			w.Int(v)
		}
		w.Byte(']')
	}
	w.Byte('}')
}

func decodeSample(r *jsoncodec.Reader, out *sample) {
	if r.Null() || !r.Object() {
		return
	}
	var seen [2]bool
	for n := 0; r.Member(n); n++ {
		switch string(r.Key()) {
		case "a":
			if seen[0] {
				r.Fail()
				return
			}
			seen[0] = true
			if !r.Null() {
				out.A = r.Str()
			}
		case "b":
			if seen[1] {
				r.Fail()
				return
			}
			seen[1] = true
			if !r.Null() && r.Array() {
				for i := 0; r.Elem(i); i++ {
					out.B = append(out.B, r.Int(64))
				}
				if out.B == nil {
					out.B = []int64{}
				}
			}
		default:
			r.Fail()
			return
		}
	}
}

func init() {
	jsoncodec.Register(encodeSample, decodeSample)
	jsoncodec.Register(func(w *jsoncodec.Writer, in *sloppy) { w.Raw(`{"a":`); w.String(in.A); w.Byte('}') },
		func(r *jsoncodec.Reader, out *sloppy) {
			if !r.Object() {
				return
			}
			for n := 0; r.Member(n); n++ {
				if string(r.Key()) == "a" {
					out.A = r.Str()
				} else {
					r.Raw()
				}
			}
		})
}

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestCheckPassesARightCodec(t *testing.T) {
	for _, obj := range []*sample{{}, {A: "<x>", B: []int64{1, -2}}, {B: []int64{}}} {
		rec := &recorder{TB: t}
		Check(rec, obj)
		if len(rec.errors) > 0 {
			t.Errorf("Check(%+v) reported %q", obj, rec.errors)
		}
	}
}

func TestCheckFailsAWrongCodec(t *testing.T) {
	rec := &recorder{TB: t}
	Check(rec, &sloppy{A: "a", B: []int64{1}})
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "the fast path wrote") {
		t.Errorf("Check of an encoder dropping a member reported %q", rec.errors)
	}
	rec = &recorder{TB: t}
	Check(rec, &sloppy{A: "a"})
	found := false
	for _, e := range rec.errors {
		found = found || strings.Contains(e, "strict-decoding errors")
	}
	if !found {
		t.Errorf("Check of a decoder ignoring unknown members reported %q", rec.errors)
	}
}

func TestMutations(t *testing.T) {
	got := map[string]bool{}
	for _, m := range Mutations([]byte(`{"a":"x","b":[1,2]}`)) {
		got[string(m)] = true
	}
	for _, want := range []string{
		`{"b":[1,2]}`, `{"a":"x"}`, `{"a":null,"b":[1,2]}`, `{"a":1,"b":[1,2]}`, `{"a":"x","a":"x","b":[1,2]}`,
		`{"zzUnknownField":"x","b":[1,2]}`, `{"\u0061":"x","b":[1,2]}`, `{"a":"x","b":{}}`, `{"a":"x","b":[2]}`,
		`{"a":"x","b":[1]}`, `{"a":"x","b":[1,null]}`, `{"a":"x","b":[1,"1"]}`, `{"a":"x","b":[1,1,2]}`,
		`{"a":"x","b":[1,2]}x`, " \n\t{\"a\":\"x\",\"b\":[1,2]}\r\n ",
	} {
		if !got[want] {
			keys := slices.Sorted(maps.Keys(got))
			t.Errorf("Mutations lacks %s; got\n%s", want, strings.Join(keys, "\n"))
		}
	}
}

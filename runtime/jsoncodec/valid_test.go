package jsoncodec

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// validSeeds are documents at every edge of the JSON grammar and of what encoding/json
// changes on output.
var validSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-1E-2`, `true`, `false`, `null`, ` {"a" : [1, 2.0, {"b":null}] } `,
	`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}}`,
	`{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}`, `"\u00e9\n\t\\\/\""`, `"<&>"`, "\"\u2028\u2029\"", `"é✓"`,
	`01`, `1.`, `.5`, `1e`, `-`, `+1`, `tru`, `nul`, `truex`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[`, `{`,
	`"abc`, `"\x"`, `"\u12G4"`, "\"\x01\"", `{"a":1}}`, `[] []`, ``, ` `, "\t[\n]\r",
}

// FuzzValid: valid agrees with encoding/json.Valid on every input, and a document valid
// calls clean is one json.Compact and json.HTMLEscape leave unchanged.
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := json.Valid(data)
		if got := valid(data, false); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json.Valid = %v", data, got, want)
		}
		clean := valid(data, true)
		if clean && !want {
			t.Fatalf("valid(%q, clean) = true for a document encoding/json rejects", data)
		}
		if !want {
			return
		}
		var compact, escaped bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		json.HTMLEscape(&escaped, compact.Bytes())
		if unchanged := bytes.Equal(escaped.Bytes(), data); clean != unchanged {
			t.Fatalf("valid(%q, clean) = %v, but Compact and HTMLEscape give %q", data, clean, escaped.Bytes())
		}
	})
}

// TestValidNestingLimit: encoding/json accepts 10000 nested arrays and objects and rejects
// 10001; so does valid.
func TestValidNestingLimit(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		close := map[string]string{"[": "]", `{"a":`: "}"}[open]
		for _, depth := range []int{maxNestingDepth, maxNestingDepth + 1} {
			doc := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth))
			if got, want := valid(doc, false), json.Valid(doc); got != want || want != (depth <= maxNestingDepth) {
				t.Errorf("%d levels of %s: valid = %v, encoding/json.Valid = %v", depth, open, got, want)
			}
		}
	}
}

// BenchmarkValid: valid and encoding/json.Valid on a managedFields field set of 36 fields.
func BenchmarkValid(b *testing.B) {
	var fields []string
	for i := range 33 {
		fields = append(fields, `"f:param`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+`":{}`)
	}
	doc := []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},` + strings.Join(fields, ",") + `}}`)
	b.Run("valid", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !valid(doc, true) {
				b.Fatal("not valid")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !json.Valid(doc) {
				b.Fatal("not valid")
			}
		}
	})
}

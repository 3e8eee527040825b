package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The example API's Database resource, as the server serves it in its storage version.
const (
	// Group, Version and Resource name the benchmarked resource.
	Group, Version, Resource = "db.example.com", "v1", "databases"
	// Kind is the kind of the benchmarked objects.
	Kind = "Database"
)

// ObjectTemplate renders JSON Database objects of a fixed approximate size: a postgres
// Database whose spec.parameters map pads the object to the size asked for, plus a "seq"
// parameter that an update changes so that every update is a real write.
type ObjectTemplate struct {
	// params is the encoded padding parameters without the enclosing braces, e.g.
	// `"p000":"xxxx","p001":"xxxx"`.
	params []byte
}

// NewObjectTemplate returns a template whose objects encode to about size bytes (within a
// few bytes, for names of up to 20 characters) of compact JSON. size must be at least 256.
func NewObjectTemplate(size int) (*ObjectTemplate, error) {
	if size < 256 {
		return nil, fmt.Errorf("cannot build object template: size %d is below 256 bytes", size)
	}
	t := &ObjectTemplate{}
	base := len(t.Render(nil, "bench-object-0000000", "", 0)) // the name length of a typical object
	// Each entry "pNNN":"<16 x's>", costs 6+1+18+1 = 26 bytes; the last one is padded to fit.
	var params []byte
	for i := 0; ; i++ {
		remaining := size - base - len(params)
		if remaining <= 0 {
			break
		}
		value := 16
		if remaining < 26+26 { // last entry: take the rest exactly (at least one x)
			value = max(1, remaining-10)
		}
		if len(params) > 0 {
			params = append(params, ',')
		}
		params = fmt.Appendf(params, `"p%03d":%q`, i, repeat('x', value))
	}
	t.params = params
	return t, nil
}

// repeat returns a string of n bytes b.
func repeat(b byte, n int) string {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return string(s)
}

// Render appends to dst the JSON of Database name in the template's shape, with
// metadata.resourceVersion set to resourceVersion unless it is "", and parameter "seq" set
// to seq, and returns the extended buffer. The namespace comes from the request path.
func (t *ObjectTemplate) Render(dst []byte, name, resourceVersion string, seq int) []byte {
	dst = append(dst, `{"apiVersion":"`+Group+`/`+Version+`","kind":"`+Kind+`","metadata":{"name":`...)
	dst = strconv.AppendQuote(dst, name)
	if resourceVersion != "" {
		dst = append(dst, `,"resourceVersion":`...)
		dst = strconv.AppendQuote(dst, resourceVersion)
	}
	dst = append(dst, `},"spec":{"engine":"postgres","parameters":{"seq":"`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, '"')
	if len(t.params) > 0 {
		dst = append(dst, ',')
		dst = append(dst, t.params...)
	}
	return append(dst, "}}}"...)
}

// objectMeta is the part of a served object or list the benchmark reads.
type objectMeta struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
}

// decodeMeta decodes the metadata of a served object.
func decodeMeta(data []byte) (objectMeta, error) {
	var m objectMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("cannot decode object metadata: %w", err)
	}
	return m, nil
}

package json

import (
	"bytes"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// MetaFactory is json.SimpleMetaFactory with a one-pass fast path (see the package doc).
// Interpret's errors are SimpleMetaFactory's.
type MetaFactory struct{}

var _ json.MetaFactory = MetaFactory{}

// Interpret returns the group, version and kind named by data's top-level "apiVersion" and
// "kind" members, as json.SimpleMetaFactory.Interpret.
func (MetaFactory) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	apiVersion, kind, ok := scanTypeMeta(data)
	if !ok {
		return json.DefaultMetaFactory.Interpret(data)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return &schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}, nil
}

// scanTypeMeta reads the top-level "apiVersion" and "kind" string members of the JSON
// object data as encoding/json would decode them into a struct, or reports !ok when data
// takes it off the fast path. Invalid JSON may yield ok; the caller's full decode rejects it.
func scanTypeMeta(data []byte) (apiVersion, kind string, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return "", "", false
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] != '}' {
		key, end, plain := scanString(data, i)
		if !plain {
			return "", "", false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return "", "", false
		}
		i = skipSpace(data, i+1)
		var field *string
		switch {
		case bytes.EqualFold(key, []byte("apiVersion")):
			field = &apiVersion
		case bytes.EqualFold(key, []byte("kind")):
			field = &kind
		}
		if i, ok = scanMember(data, i, field); !ok {
			return "", "", false
		}
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return apiVersion, kind, i < len(data)
}

// scanMember skips the value at data[i], storing it in field when field is not nil: a plain
// string sets it, null leaves it (as encoding/json), anything else is off the fast path.
// It returns the index after the value.
func scanMember(data []byte, i int, field *string) (int, bool) {
	if field == nil {
		return skipValue(data, i)
	}
	if bytes.HasPrefix(data[i:], []byte("null")) {
		return i + len("null"), true
	}
	value, end, plain := scanString(data, i)
	if !plain {
		return 0, false
	}
	*field = string(value)
	return end, true
}

// scanString reads the string starting at data[i] (its opening quote). It returns its
// contents, the index after its closing quote, and whether it is plain: a string with no
// escape and no byte outside ASCII, whose contents are what encoding/json decodes it to.
func scanString(data []byte, i int) (contents []byte, end int, plain bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return data[i+1 : j], j + 1, true
		case c == '\\' || c >= 0x80 || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipValue returns the index after the JSON value starting at data[i]. Nested objects and
// arrays are skipped by counting brackets outside strings.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, ok := skipString(data, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, true
		}
		i++
	}
	return 0, false
}

// skipString returns the index after the string starting at data[i], escapes included.
func skipString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

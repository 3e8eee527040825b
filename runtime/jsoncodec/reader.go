package jsoncodec

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
)

// Reader reads one JSON document for a generated decoder, value by value, the way
// sigs.k8s.io/json's case-sensitive, int-preserving Unmarshal would store it. Anything off
// that path fails the Reader (see the package doc); a failed Reader's methods return zero
// values and do not move, so generated decoders check Failed only where they loop.
type Reader struct {
	data []byte
	pos  int
	// text is string(data), made on the first string read from a document of at most
	// sharedTextLimit bytes: the strings read from it are substrings of text, one allocation
	// for all of them instead of one each (they then keep the document's text alive). Set
	// from the start, to data itself, by UnmarshalTransient.
	text   string
	key    []byte // the name of the member Member read last, unescaped
	keyAt  int    // the offset of key in data, or -1 when key does not alias data
	failed bool
}

// sharedTextLimit is the largest document (bytes) whose strings share one allocation; a
// larger one's strings are allocated one by one, so that a string kept from it does not pin
// the whole document.
const sharedTextLimit = 16 << 10

// NewReader returns a Reader at the start of data, which it does not modify or keep beyond
// the decode (strings are copied out).
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// Failed reports whether the document left the fast path.
func (r *Reader) Failed() bool { return r.failed }

// Fail marks the Reader failed: generated decoders call it for an unknown or duplicate
// member.
func (r *Reader) Fail() { r.failed = true }

// Done reports whether the document was read without failing and nothing but whitespace
// follows its top-level value; otherwise it fails the Reader.
func (r *Reader) Done() bool {
	r.skipSpace()
	if r.pos != len(r.data) {
		r.failed = true
	}
	return !r.failed
}

// skipSpace moves past JSON whitespace.
func (r *Reader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// next returns the first byte of the next token, or 0 at the end or when failed.
func (r *Reader) next() byte {
	if r.failed {
		return 0
	}
	r.skipSpace()
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// literal consumes lit (true, false or null) when it comes next.
func (r *Reader) literal(lit string) bool {
	if len(r.data)-r.pos >= len(lit) && string(r.data[r.pos:r.pos+len(lit)]) == lit {
		r.pos += len(lit)
		return true
	}
	return false
}

// Null consumes a null when one comes next and reports whether it did.
func (r *Reader) Null() bool {
	return r.next() == 'n' && r.literal("null")
}

// Peek returns the next byte of the document that is not white space, without consuming it:
// '{', '[', '"', 'n' (null), ..., or 0 at the end of the document.
func (r *Reader) Peek() byte { return r.next() }

// Object consumes the '{' that starts an object; anything else fails the Reader.
func (r *Reader) Object() bool {
	if r.next() != '{' {
		r.failed = true
		return false
	}
	r.pos++
	return true
}

// Member reads the name and colon of the object's member number n (from 0), making the
// name Key's, or consumes the object's closing '}' and returns false. Malformed JSON fails
// the Reader. Generated decoders loop `for n := 0; r.Member(n); n++`.
func (r *Reader) Member(n int) bool {
	c := r.next()
	if c == '}' {
		r.pos++
		return false
	}
	if n > 0 {
		if c != ',' {
			r.failed = true
			return false
		}
		r.pos++
		c = r.next()
	}
	if c != '"' {
		r.failed = true
		return false
	}
	r.key, r.keyAt = r.stringBytes()
	if r.next() != ':' {
		r.failed = true
		return false
	}
	r.pos++
	return !r.failed
}

// Key returns the name of the member Member read last. It is valid until the next call
// of Member.
func (r *Reader) Key() []byte { return r.key }

// KeyString returns Key as a new string, for a map key.
func (r *Reader) KeyString() string { return r.toString(r.key, r.keyAt) }

// toString returns b, read from the document at offset at (-1: not from the document), as a
// string, a substring of the document's text when it may share it.
func (r *Reader) toString(b []byte, at int) string {
	if at < 0 || len(r.data) > sharedTextLimit {
		return string(b)
	}
	if r.text == "" {
		r.text = string(r.data)
	}
	return r.text[at : at+len(b)]
}

// Len counts the members (or elements) of the object (or array) whose opening bracket
// Object (or Array) has just consumed, without moving the Reader: a size hint for the map
// (or slice) a generated decoder is about to fill. It is only a hint: on malformed JSON the
// count may be wrong, and the decode fails later anyway.
func (r *Reader) Len() int {
	n, depth, empty := 0, 0, true
	for i := r.pos; i < len(r.data); i++ {
		switch c := r.data[i]; c {
		case '"':
			i = skipString(r.data, i) - 1
			empty = false
		case '{', '[':
			depth++
			empty = false
		case '}', ']':
			if depth == 0 {
				if empty {
					return 0
				}
				return n + 1
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		case ' ', '\t', '\n', '\r':
		default:
			empty = false
		}
	}
	return n
}

// Array consumes the '[' that starts an array; anything else fails the Reader.
func (r *Reader) Array() bool {
	if r.next() != '[' {
		r.failed = true
		return false
	}
	r.pos++
	return true
}

// Elem moves to the array's element number i (from 0), or consumes the array's closing ']'
// and returns false. Generated decoders loop `for i := 0; r.Elem(i); i++`.
func (r *Reader) Elem(i int) bool {
	c := r.next()
	if c == ']' {
		r.pos++
		return false
	}
	if i > 0 {
		if c != ',' {
			r.failed = true
			return false
		}
		r.pos++
	}
	return !r.failed
}

// Str reads a string. (It is not called String so that a Reader is not a fmt.Stringer,
// which printing would move.)
func (r *Reader) Str() string {
	if r.next() != '"' {
		r.failed = true
		return ""
	}
	return r.toString(r.stringBytes())
}

// stringBytes reads the string starting at r.pos (its opening quote) and returns its
// contents as encoding/json unquotes them, and their offset in r.data when they are a part
// of it (a string without escapes), else -1.
func (r *Reader) stringBytes() ([]byte, int) {
	start := r.pos + 1
	for i := start; i < len(r.data); {
		c := r.data[i]
		switch {
		case c == '"':
			r.pos = i + 1
			return r.data[start:i], start
		case c == '\\':
			return r.escapedString(), -1
		case c < 0x20:
			r.failed = true
			return nil, -1
		case c < utf8.RuneSelf:
			i++
		default:
			rn, size := utf8.DecodeRune(r.data[i:])
			if rn == utf8.RuneError && size == 1 {
				return r.escapedString(), -1 // encoding/json replaces invalid UTF-8
			}
			i += size
		}
	}
	r.failed = true
	return nil, -1
}

// escapedString reads the string at r.pos the slow way: encoding/json unquotes it.
func (r *Reader) escapedString() []byte {
	end := skipString(r.data, r.pos)
	if end > len(r.data) {
		r.failed = true
		return nil
	}
	var s string
	if err := json.Unmarshal(r.data[r.pos:end], &s); err != nil {
		r.failed = true
		return nil
	}
	r.pos = end
	return []byte(s)
}

// Bool reads true or false.
func (r *Reader) Bool() bool {
	switch r.next() {
	case 't':
		if r.literal("true") {
			return true
		}
	case 'f':
		if r.literal("false") {
			return false
		}
	}
	r.failed = true
	return false
}

// number reads a number literal in JSON's grammar and returns it and whether it is an
// integer literal (no fraction, no exponent).
func (r *Reader) number() (lit []byte, integer bool) {
	c := r.next()
	if c != '-' && (c < '0' || c > '9') {
		r.failed = true
		return nil, false
	}
	d := r.data
	start, i := r.pos, r.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		r.failed = true
		return nil, false
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		integer = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			r.failed = true
			return nil, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			r.failed = true
			return nil, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	r.pos = i
	return d[start:i], integer
}

// Int reads an integer that fits in a signed integer of bits bits (8, 16, 32 or 64). A
// fraction, an exponent or an overflow fails the Reader, as encoding/json refuses them.
func (r *Reader) Int(bits int) int64 {
	lit, integer := r.number()
	if r.failed || !integer {
		r.failed = true
		return 0
	}
	v, err := strconv.ParseInt(string(lit), 10, bits)
	if err != nil {
		r.failed = true
		return 0
	}
	return v
}

// Uint reads a non-negative integer that fits in an unsigned integer of bits bits.
func (r *Reader) Uint(bits int) uint64 {
	lit, integer := r.number()
	if r.failed || !integer || lit[0] == '-' {
		r.failed = true
		return 0
	}
	v, err := strconv.ParseUint(string(lit), 10, bits)
	if err != nil {
		r.failed = true
		return 0
	}
	return v
}

// Float reads a number as a float of bits bits (32 or 64); one out of range fails the
// Reader.
func (r *Reader) Float(bits int) float64 {
	lit, _ := r.number()
	if r.failed {
		return 0
	}
	v, err := strconv.ParseFloat(string(lit), bits)
	if err != nil {
		r.failed = true
		return 0
	}
	return v
}

// Raw reads the next value, which must be valid JSON, and returns its bytes (aliasing the
// document).
func (r *Reader) Raw() []byte {
	c := r.next()
	if c == 0 {
		r.failed = true
		return nil
	}
	start := r.pos
	switch c {
	case '"', '{', '[': // checked as it is skipped, in one pass
		end := skipValidValue(r.data, start, false)
		if end < 0 {
			r.failed = true
			return nil
		}
		r.pos = end
		return r.data[start:end]
	}
	// A number, true, false or null: up to the next delimiter.
	for r.pos < len(r.data) && !isDelimiter(r.data[r.pos]) {
		r.pos++
	}
	if !valid(r.data[start:r.pos], false) {
		r.failed = true
		return nil
	}
	return r.data[start:r.pos]
}

// skipString returns the index after the string starting at data[i] (its opening quote),
// or len(data)+1 when it is not terminated.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data) + 1
}

// isDelimiter reports whether c ends a number or literal.
func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// Unmarshaler reads the next value (null included) and hands its bytes to
// u.UnmarshalJSON, as encoding/json does for a json.Unmarshaler; an error from it fails the
// Reader.
func (r *Reader) Unmarshaler(u json.Unmarshaler) {
	raw := r.Raw()
	if r.failed {
		return
	}
	if err := u.UnmarshalJSON(raw); err != nil {
		r.failed = true
	}
}

// Value reads the next value into v, a pointer, with v's registered decoder (see Register)
// when it has one, and otherwise with sigs.k8s.io/json's strict Unmarshal; strict errors
// (unknown or duplicate fields) fail the Reader like any other. Generated decoders use it
// for values of types they do not know: interfaces, and types of other packages.
func (r *Reader) Value(v any) {
	if c, ok := lookup(v); ok {
		c.decode(r, v)
		return
	}
	raw := r.Raw()
	if r.failed {
		return
	}
	strict, err := kjson.UnmarshalStrict(raw, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil || len(strict) > 0 {
		r.failed = true
	}
}

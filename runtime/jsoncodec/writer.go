package jsoncodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// errUnsupported marks a Writer that met a value encoding/json would refuse.
var errUnsupported = errors.New("jsoncodec: value not encodable on the fast path")

// Writer appends JSON to a byte slice, writing each value as encoding/json.Marshal writes it.
// The zero Writer is ready to use. Generated encoders call its methods in document order and
// never check for errors: a failed Writer (see Failed) keeps accepting calls.
type Writer struct {
	buf    []byte
	failed bool
	// keys holds the sorted keys of the maps being written (SortedKeysIn), outermost first.
	keys []string
}

// Bytes returns what was written so far; the slice is the Writer's until Reset.
func (w *Writer) Bytes() []byte { return w.buf }

// Reset empties the Writer, keeping its buffer, and clears its failed mark and the keys
// SortedKeysIn holds.
func (w *Writer) Reset() {
	w.buf = w.buf[:0]
	w.failed = false
	w.dropKeys()
}

// maxKeys is the most keys a Writer's scratch space keeps for its next use.
const maxKeys = 1024

// dropKeys forgets the keys SortedKeysIn holds, keeping their space unless it is over
// maxKeys.
func (w *Writer) dropKeys() {
	clear(w.keys)
	if cap(w.keys) > maxKeys {
		w.keys = nil
	}
	w.keys = w.keys[:0]
}

// Failed reports whether a value could not be written as encoding/json would write it; the
// bytes written are then not to be used.
func (w *Writer) Failed() bool { return w.failed }

// Fail marks the Writer failed.
func (w *Writer) Fail() { w.failed = true }

// Raw appends s as it is: punctuation and keys a generator quoted at generation time.
func (w *Writer) Raw(s string) { w.buf = append(w.buf, s...) }

// Byte appends one byte of punctuation ('{', '}', '[', ']', ',').
func (w *Writer) Byte(c byte) { w.buf = append(w.buf, c) }

// Field starts an object member: a comma when *more (a member was written before), then
// key, which is the member's name already quoted and followed by a colon (`"kind":`). It
// sets *more.
func (w *Writer) Field(more *bool, key string) {
	if *more {
		w.buf = append(w.buf, ',')
	}
	*more = true
	w.buf = append(w.buf, key...)
}

// Key starts an object member named by the map key k: a comma when *more, the quoted key
// and a colon. It sets *more.
func (w *Writer) Key(more *bool, k string) {
	if *more {
		w.buf = append(w.buf, ',')
	}
	*more = true
	w.String(k)
	w.buf = append(w.buf, ':')
}

// Null appends null.
func (w *Writer) Null() { w.buf = append(w.buf, "null"...) }

// Bool appends true or false.
func (w *Writer) Bool(b bool) { w.buf = strconv.AppendBool(w.buf, b) }

// Int appends v in decimal.
func (w *Writer) Int(v int64) { w.buf = strconv.AppendInt(w.buf, v, 10) }

// Uint appends v in decimal.
func (w *Writer) Uint(v uint64) { w.buf = strconv.AppendUint(w.buf, v, 10) }

// Float appends v, a float64 or (bits 32) a float32 widened to float64, in encoding/json's
// format: like %g with exponents only below 1e-6 and from 1e21 on, unpadded. NaN and
// infinities, which encoding/json refuses, fail the Writer.
func (w *Writer) Float(v float64, bits int) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		w.failed = true
		return
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	w.buf = strconv.AppendFloat(w.buf, v, format, -1, bits)
	if format == 'e' { // e-09 -> e-9
		if n := len(w.buf); n >= 4 && w.buf[n-4] == 'e' && w.buf[n-3] == '-' && w.buf[n-2] == '0' {
			w.buf[n-2] = w.buf[n-1]
			w.buf = w.buf[:n-1]
		}
	}
}

const hexDigits = "0123456789abcdef"

// String appends s quoted as encoding/json quotes strings: <, > and & escaped as \u003c,
// \u003e and \u0026, control bytes escaped, invalid UTF-8 replaced by \ufffd, U+2028 and
// U+2029 escaped.
func (w *Writer) String(s string) {
	buf := append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	w.buf = append(buf, '"')
}

// Marshaler appends what m.MarshalJSON returns, compacted and HTML-escaped, as
// encoding/json does with a json.Marshaler's output; the common output (timestamps,
// quantities, the field sets of managedFields) is already compact and needs no escaping, and
// is copied as it is once valid has checked it. An error or invalid JSON from MarshalJSON
// fails the Writer.
func (w *Writer) Marshaler(m json.Marshaler) {
	data, err := m.MarshalJSON()
	if err != nil {
		w.failed = true
		return
	}
	if valid(data, true) { // what Compact and HTMLEscape would leave as it is
		w.buf = append(w.buf, data...)
		return
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		w.failed = true
		return
	}
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, compact.Bytes())
	w.buf = append(w.buf, escaped.Bytes()...)
}

// Value appends v with its registered encoder (see Register) when v is a pointer to a type
// that has one, and otherwise as encoding/json.Marshal(v) writes it. Generated encoders use
// it for values of types they do not know: interfaces, and types of other packages. An
// error from encoding/json fails the Writer.
func (w *Writer) Value(v any) {
	if c, ok := lookup(v); ok {
		c.encode(w, v)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		w.failed = true
		return
	}
	w.buf = append(w.buf, data...)
}

// SortedKeysIn returns m's keys in the order encoding/json writes a map's members (ascending
// byte-wise), in w's scratch space rather than a new slice (a Writer that Marshal recycles
// keeps it between encodes): the keys are valid until ReleaseKeys(w, keys), which the caller
// calls once done with them, the keys of a nested map before those of the map holding it.
// An empty m has no keys (nil) to release.
func SortedKeysIn[M ~map[K]V, K ~string, V any](w *Writer, m M) []K {
	if len(m) == 0 {
		return nil
	}
	start := len(w.keys)
	for k := range m {
		w.keys = append(w.keys, string(k))
	}
	s := w.keys[start:]
	slices.Sort(s) // as []K: K's underlying type is string
	return unsafe.Slice((*K)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// ReleaseKeys gives back the scratch space of keys, the result of the last SortedKeysIn on
// w not released yet.
func ReleaseKeys[K ~string](w *Writer, keys []K) {
	n := len(w.keys) - len(keys)
	clear(w.keys[n:])
	w.keys = w.keys[:n]
}

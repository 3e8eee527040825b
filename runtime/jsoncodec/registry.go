package jsoncodec

import (
	"reflect"
	"sync"
	"unsafe"
)

// codec is the registered encoder and decoder of one pointer type.
type codec struct {
	encode func(w *Writer, v any)
	decode func(r *Reader, v any) // into v, a pointer to a zero value
	reset  func(v any)            // zeroes *v
}

// codecs maps *T to its codec; written by generated init functions, read on every request.
var codecs sync.Map // reflect.Type -> codec

// Register records the generated JSON encoder and decoder of type T, found by Marshal,
// Unmarshal, Writer.Value and Reader.Value for values of type *T exactly (a type embedding
// T is not T). Generated zz_generated.json.go files call it from init. Registering T again
// replaces its codec.
func Register[T any](encode func(w *Writer, in *T), decode func(r *Reader, out *T)) {
	codecs.Store(reflect.TypeFor[*T](), codec{
		encode: func(w *Writer, v any) { encode(w, v.(*T)) },
		decode: func(r *Reader, v any) { decode(r, v.(*T)) },
		reset: func(v any) {
			var zero T
			*v.(*T) = zero
		},
	})
}

// lookup returns the codec registered for v's dynamic type.
func lookup(v any) (codec, bool) {
	c, ok := codecs.Load(reflect.TypeOf(v))
	if !ok {
		return codec{}, false
	}
	return c.(codec), true
}

// Registered reports whether v's type has a registered codec.
func Registered(v any) bool {
	_, ok := lookup(v)
	return ok
}

// writers recycles Writers' buffers between Marshal calls.
var writers = sync.Pool{New: func() any { return new(Writer) }}

// Marshal appends the JSON encoding of v (a pointer to a type with a registered codec) to
// dst, exactly as encoding/json.Marshal(v) would write it, and returns the extended slice.
// ok is false, with dst unchanged, when v's type has no codec or the fast path failed; the
// caller then encodes v with encoding/json.
func Marshal(dst []byte, v any) (out []byte, ok bool) {
	c, found := lookup(v)
	if !found {
		return dst, false
	}
	w := writers.Get().(*Writer)
	w.buf = dst
	c.encode(w, v)
	out, failed := w.buf, w.failed
	w.buf, w.failed = nil, false
	w.dropKeys()
	writers.Put(w)
	if failed {
		return dst, false
	}
	return out, true
}

// Unmarshal decodes data into v, a pointer to the zero value of a type with a registered
// codec, as sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts(data, v) would. It reports
// false, with *v left zero, when v's type has no codec or data is off the fast path (see the
// package doc); the caller then decodes data the reference way.
func Unmarshal(data []byte, v any) bool {
	c, found := lookup(v)
	if !found {
		return false
	}
	return unmarshal(c, Reader{data: data}, v)
}

// UnmarshalTransient is Unmarshal for a decode whose result is dropped before data changes
// (a check that data reads back as an object): the strings of v are data's own bytes
// (unsafe.String) rather than a copy of them, so v must not be used, nor any string taken
// from it kept, once data is changed or reused.
func UnmarshalTransient(data []byte, v any) bool {
	c, found := lookup(v)
	if !found {
		return false
	}
	return unmarshal(c, Reader{data: data, text: unsafe.String(unsafe.SliceData(data), len(data))}, v)
}

// unmarshal decodes r's document into v with c, leaving v zero when it fails.
func unmarshal(c codec, r Reader, v any) bool {
	c.decode(&r, v)
	if !r.Done() {
		c.reset(v)
		return false
	}
	return true
}

// Package jsoncodec is the JSON reader and writer that apigen's generated JSON codecs
// (zz_generated.json.go) are written against, and the registry that finds a Go type's
// generated codec.
//
// A generated codec is an optimisation, never a change of behaviour:
//
//   - Writer writes, byte for byte, what encoding/json.Marshal writes for the same value
//     (HTML-escaped strings, sorted map keys, encoding/json's float format). An encoder that
//     meets something it cannot write so (a NaN, a failing MarshalJSON) marks the Writer
//     failed, and Marshal's caller encodes the value with encoding/json instead, whose error
//     is the one reported.
//   - Reader decodes what sigs.k8s.io/json's case-sensitive, int-preserving Unmarshal decodes
//     (the decoder of k8s.io/apimachinery's JSON serializer), for documents in which every
//     member names a field exactly once. Anything else (an unknown or duplicate field, a
//     value of the wrong JSON type, a number out of range, malformed JSON) marks the Reader
//     failed, and Unmarshal's caller decodes the document the reference way, whose result
//     and errors (strict-decoding errors included) are the ones that count.
//
// So the fast path needs no error messages of its own, and every answer it gives is one the
// reference decoder gives too; runtime/jsoncodec/jsoncodectest checks that on random objects
// of every generated type (TestJSONCodecs in each API package).
package jsoncodec

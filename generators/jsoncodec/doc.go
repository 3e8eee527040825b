// Package jsoncodec is apigen's JSON codec generator ("json"): for every struct type of an
// API package (hub packages included) that encoding/json handles in ways it can copy
// exactly, it writes to zz_generated.json.go an encoder and a decoder against
// runtime/jsoncodec's Writer and Reader,
//
//	func jsonEncodeT(w *jsoncodec.Writer, in *T) // writes what encoding/json.Marshal(in) writes
//	func jsonDecodeT(r *jsoncodec.Reader, out *T) // reads into *out, a zero T
//
// and one init registering them all (jsoncodec.Register), so that the server's JSON
// serializer encodes and decodes API objects without reflection. The codecs are an
// optimisation only: the output is byte for byte encoding/json's, a decoded object is
// reflect.DeepEqual to what sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts decodes, and
// anything the generated code is not sure about fails the Writer or Reader (directly, or
// through Writer.Value and Reader.Value, which use encoding/json's reflection) so the caller
// redoes the work with the reference library.
//
// A struct gets no codec (its fields' values are then written and read by reflection
// wherever it is used) when encoding/json gives it behaviour the generator does not copy:
// MarshalJSON, UnmarshalJSON, MarshalText or UnmarshalText in its or its pointer's method
// set; an embedded pointer, an embedded non-struct or an unexported embedded field; a json
// tag with ",string" or ",omitzero", an invalid name or ",inline" on a field that is not
// embedded; or two fields with one JSON name after embedded structs are inlined.
//
// Field values: basic kinds natively; pointers, slices (not byte slices) and maps with
// string keys in generated loops; types with MarshalJSON / UnmarshalJSON through
// Writer.Marshaler and Reader.Unmarshaler; structs of the same package through their
// generated functions and the k8s.io/apimachinery structs every group uses (ObjectMeta,
// Status, Condition, ...) through the shared codecs of runtime/jsoncodec/apimachinery, which
// TestSharedCodecs generates from testdata/input/shared; everything else (interfaces, arrays,
// byte slices, text marshalers, other packages' structs) through Writer.Value and
// Reader.Value.
package jsoncodec

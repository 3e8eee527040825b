// Package json builds the JSON and YAML serializers of apigen's runtime, for the
// objects it stores and those it serves: k8s.io/apimachinery's runtime/serializer/json
// serializers, with a faster way to find a document's apiVersion and kind.
//
// apimachinery's json.SimpleMetaFactory finds them with a full encoding/json.Unmarshal of the
// document into a two-field struct, about a third of the cost of decoding an object.
// MetaFactory reads them in one pass over the top level of the document, skipping nested
// values without decoding them, and defers to SimpleMetaFactory for anything unusual (a
// key with an escape or a non-ASCII byte, a non-string apiVersion or kind, a document that is
// not an object). Its answer for a valid JSON document is SimpleMetaFactory's: keys match
// case-insensitively, the last occurrence wins and null leaves a field unset, as
// encoding/json decodes them. For invalid JSON, the serializers of NewSerializer run the
// decode again with SimpleMetaFactory, so errors read exactly as apimachinery's.
package json

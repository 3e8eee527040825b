// Package jsoncodectest is the differential test of generated JSON codecs (see
// runtime/jsoncodec): Check holds a registered codec to the reference libraries on a value,
// on what encoding/json writes for it, and on mutations of that document (members removed,
// renamed, repeated, set to null or to a value of the wrong JSON type, keys escaped,
// whitespace added). The fast path may refuse any document (its caller then decodes the
// reference way), but what it writes must be encoding/json's bytes and what it decodes must
// be sigs.k8s.io/json's object. Filler fills API objects at random for it.
package jsoncodectest

package jsonserializer

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// Serializer is json.Serializer (JSON or YAML, lenient or strict) finding apiVersion and
// kind with MetaFactory. Encoding is json.Serializer's; decoding gives exactly its results.
type Serializer struct {
	*json.Serializer
	// exact is the same serializer with json.DefaultMetaFactory, which decodes again a
	// document the fast one fails on, so errors are apimachinery's word for word.
	exact *json.Serializer
}

var _ runtime.Serializer = (*Serializer)(nil)

// NewSerializer returns the serializer json.NewSerializerWithOptions(json.DefaultMetaFactory,
// creater, typer, options) would, with MetaFactory's faster type sniffing.
func NewSerializer(creater runtime.ObjectCreater, typer runtime.ObjectTyper, options json.SerializerOptions) *Serializer {
	return &Serializer{
		Serializer: json.NewSerializerWithOptions(MetaFactory{}, creater, typer, options),
		exact:      json.NewSerializerWithOptions(json.DefaultMetaFactory, creater, typer, options),
	}
}

// Decode implements runtime.Decoder as json.Serializer.Decode. A document the fast path
// fails on (malformed, or of the wrong shape for its type) is decoded again the exact way,
// whose result is returned; strict-decoding errors (unknown or duplicate fields) come with
// the decoded object and are returned as they are.
func (s *Serializer) Decode(data []byte, gvk *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, actual, err := s.Serializer.Decode(data, gvk, into)
	if err == nil || (obj != nil && runtime.IsStrictDecodingError(err)) {
		return obj, actual, err
	}
	return s.exact.Decode(data, gvk, into)
}

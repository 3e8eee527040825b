package etcd3

import (
	"bytes"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// Codec is the storage codec of one resource, as kube-apiserver's
// CodecFactory.CodecForVersions(serializer, serializer, storageVersion, internalVersion):
// Encode writes the object converted to the storage version; Decode reads any version the
// scheme knows, defaults it and converts it to the internal version. Safe for concurrent use.
//
// Beyond runtime.Codec, a store asks a Codec what the bytes it has just written read back as
// (encodeStored), which it answers without decoding them.
type Codec struct {
	runtime.Codec
	scheme     *runtime.Scheme
	serializer runtime.Serializer
	storage    schema.GroupVersion
	internal   schema.GroupVersion
}

var _ runtime.Codec = (*Codec)(nil)

// NewCodec returns the codec that stores objects with ser (a JSON serializer) in
// storageVersion and reads them back into internalVersion (for a group without an internal
// package, its hub version's "__internal" registration).
func NewCodec(scheme *runtime.Scheme, ser runtime.Serializer, storageVersion, internalVersion schema.GroupVersion) *Codec {
	return &Codec{
		Codec:      serializer.NewCodecFactory(scheme).CodecForVersions(ser, ser, storageVersion, internalVersion),
		scheme:     scheme,
		serializer: ser,
		storage:    storageVersion,
		internal:   internalVersion,
	}
}

// storedEncoder is implemented by codecs that can say what the bytes they encode decode to.
type storedEncoder interface {
	// encodeStored encodes obj (left unchanged) for storage and returns the bytes and the
	// object Decode(data, nil, into) would return; into is a new, empty internal object the
	// result may be.
	encodeStored(obj, into runtime.Object) ([]byte, runtime.Object, error)
}

// encodeStored implements storedEncoder. It does what Encode and then Decode do, minus the
// JSON round trip: convert a copy of obj to the storage version, serialize it, then default
// that versioned object and convert it to the internal version, as the versioning codec's
// Decode does with the object it unmarshals. The result serializes to the same JSON as the
// decoded one; only what a JSON round trip erases may differ in memory (sub-second
// timestamps, an empty rather than nil collection marked omitempty).
//
// Kinds that nest encoded objects (runtime.NestedObjectEncoder) take the exact way: Encode,
// then Decode.
func (c *Codec) encodeStored(obj, into runtime.Object) ([]byte, runtime.Object, error) {
	if _, nested := obj.(runtime.NestedObjectEncoder); nested {
		return c.encodeDecode(obj, into)
	}
	if _, unversioned, err := c.scheme.ObjectKinds(obj); err != nil || unversioned {
		return c.encodeDecode(obj, into)
	}
	versioned, err := c.scheme.ConvertToVersion(obj, c.storage)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot convert %T to %s: %w", obj, c.storage, err)
	}
	if _, nested := versioned.(runtime.NestedObjectDecoder); nested {
		return c.encodeDecode(obj, into)
	}
	var buf bytes.Buffer
	if err := c.serializer.Encode(versioned, &buf); err != nil {
		return nil, nil, err
	}
	c.scheme.Default(versioned)
	if reflect.TypeOf(versioned) == reflect.TypeOf(into) {
		return buf.Bytes(), versioned, nil
	}
	if err := c.scheme.Convert(versioned, into, c.internal); err != nil {
		return nil, nil, fmt.Errorf("cannot convert %T to %s: %w", versioned, c.internal, err)
	}
	return buf.Bytes(), into, nil
}

// encodeDecode is encodeStored the exact way, through a decode of the encoded bytes.
func (c *Codec) encodeDecode(obj, into runtime.Object) ([]byte, runtime.Object, error) {
	data, err := encodeTo(c.Codec, obj)
	if err != nil {
		return nil, nil, err
	}
	out, _, err := c.Codec.Decode(data, nil, into)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot decode the encoded %T: %w", obj, err)
	}
	return data, out, nil
}

// encodeTo encodes obj with enc into a new slice.
func encodeTo(enc runtime.Encoder, obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := enc.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package json

import (
	"io"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// Serializer is json.Serializer (JSON or YAML, lenient or strict) finding apiVersion and
// kind with MetaFactory, and encoding and decoding JSON with the generated codecs of
// runtime/jsoncodec for types that have one. Its results are json.Serializer's: output byte
// for byte, decoded objects and errors alike (see Encode and Decode).
type Serializer struct {
	*json.Serializer
	// exact is the same serializer with json.DefaultMetaFactory, which decodes again a
	// document the fast one fails on, so errors are apimachinery's word for word.
	exact   *json.Serializer
	creater runtime.ObjectCreater
	typer   runtime.ObjectTyper
	// fast is true for plain JSON (neither YAML nor pretty), the format generated codecs write.
	fast bool
}

var _ runtime.Serializer = (*Serializer)(nil)

// NewSerializer returns the serializer json.NewSerializerWithOptions(json.DefaultMetaFactory,
// creater, typer, options) would, with MetaFactory's faster type sniffing and, for plain
// JSON, the generated codecs.
func NewSerializer(creater runtime.ObjectCreater, typer runtime.ObjectTyper, options json.SerializerOptions) *Serializer {
	return &Serializer{
		Serializer: json.NewSerializerWithOptions(MetaFactory{}, creater, typer, options),
		exact:      json.NewSerializerWithOptions(json.DefaultMetaFactory, creater, typer, options),
		creater:    creater,
		typer:      typer,
		fast:       !options.Yaml && !options.Pretty,
	}
}

// maxPooledBuffer is the largest encode buffer kept for reuse (bytes); a large list's is
// dropped so that the pool does not pin it.
const maxPooledBuffer = 64 << 10

// buffers recycles encode buffers.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// Encode implements runtime.Encoder as json.Serializer.Encode: obj's JSON and a newline.
// A plain-JSON serializer writes an object whose type has a generated codec with it (the
// same bytes encoding/json writes); anything else, or a value the codec cannot write, is
// json.Serializer's to encode. A list with items is written the way kube-apiserver streams
// collections: item by item, in writes of about 32 KiB (see encodeList), the same bytes.
func (s *Serializer) Encode(obj runtime.Object, w io.Writer) error {
	if _, cacheable := obj.(runtime.CacheableObject); !s.fast || cacheable {
		return s.Serializer.Encode(obj, w)
	}
	if handled, err := encodeList(obj, w); handled {
		return err
	}
	bp := buffers.Get().(*[]byte)
	defer buffers.Put(bp)
	data, ok := jsoncodec.Marshal((*bp)[:0], obj)
	if !ok {
		return s.Serializer.Encode(obj, w)
	}
	data = append(data, '\n')
	if cap(data) <= maxPooledBuffer {
		*bp = data
	}
	_, err := w.Write(data)
	return err
}

// Decode implements runtime.Decoder as json.Serializer.Decode. A plain-JSON document whose
// target type has a generated codec is decoded with it when it can be (see runtime/jsoncodec);
// any other document, or one the codec leaves, is decoded by json.Serializer, and one that
// fails there (malformed, or of the wrong shape for its type) is decoded again the exact
// way, whose result is returned; strict-decoding errors (unknown or duplicate fields) come
// with the decoded object and are returned as they are.
func (s *Serializer) Decode(data []byte, gvk *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if s.fast {
		if obj, actual, ok := s.decodeFast(data, gvk, into); ok {
			return obj, actual, nil
		}
	}
	obj, actual, err := s.Serializer.Decode(data, gvk, into)
	if err == nil || (obj != nil && runtime.IsStrictDecodingError(err)) {
		return obj, actual, err
	}
	return s.exact.Decode(data, gvk, into)
}

// decodeFast is json.Serializer.Decode's path for a typed target, with the generated codec
// as the unmarshaller. It reports !ok, having changed nothing, for anything off that path:
// into of no registered kind or not empty, Unstructured or Unknown, a document whose kind or
// version cannot be found, a type without a codec or a document its codec leaves.
func (s *Serializer) decodeFast(data []byte, gvk *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, bool) {
	switch into.(type) {
	case runtime.Unstructured, *runtime.Unknown:
		return nil, nil, false
	}
	actual, err := MetaFactory{}.Interpret(data)
	if err != nil {
		return nil, nil, false
	}
	if gvk != nil {
		*actual = gvkWithDefaults(*actual, *gvk)
	}
	if into != nil {
		types, _, err := s.typer.ObjectKinds(into)
		if err != nil {
			return nil, nil, false
		}
		*actual = gvkWithDefaults(*actual, types[0])
	}
	if actual.Kind == "" || actual.Version == "" {
		return nil, nil, false
	}
	obj, err := runtime.UseOrCreateObject(s.typer, s.creater, *actual, into)
	if err != nil {
		return nil, nil, false
	}
	// encoding/json merges into what a reused target holds; the codecs start from zero.
	if obj == into {
		if v := reflect.ValueOf(into); v.Kind() != reflect.Pointer || v.IsNil() || !v.Elem().IsZero() {
			return nil, nil, false
		}
	}
	if !jsoncodec.Unmarshal(data, obj) {
		return nil, nil, false
	}
	return obj, actual, true
}

// gvkWithDefaults fills what actual lacks from defaultGVK, as apimachinery's json
// serializer does: the kind, and the version when the group is unset or the same.
func gvkWithDefaults(actual, defaultGVK schema.GroupVersionKind) schema.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = defaultGVK.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group = defaultGVK.Group
		actual.Version = defaultGVK.Version
	}
	if actual.Version == "" && actual.Group == defaultGVK.Group {
		actual.Version = defaultGVK.Version
	}
	return actual
}

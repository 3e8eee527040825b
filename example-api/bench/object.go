package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The example API's Database resource, as the server serves it in its storage version.
const (
	// Group, Version and Resource name the benchmarked resource.
	Group, Version, Resource = "db.example.com", "v1", "databases"
	// Kind is the kind of the benchmarked objects.
	Kind = "Database"
)

// APIResource is a benchmarked resource: where its objects are served and what they look
// like. The workloads take it as a parameter (ScenarioConfig.Resource, WatchConfig through
// its Template), so that apigen's Databases and the anchor's Flunders run the same code.
type APIResource struct {
	// Group, Version and Resource name it in URLs: /apis/<Group>/<Version>/namespaces/<ns>/<Resource>.
	Group, Version, Resource string
	// Kind is its objects' kind.
	Kind string
	// Spec is the JSON of every object's spec, before the padding: `{"engine":"postgres"}`.
	Spec string
	// InAnnotations pads the object with metadata.annotations (for a kind whose spec has no
	// free-form map, e.g. sample-apiserver's Flunder) rather than with the spec's
	// "parameters" map (Database's spec.parameters). The padding and the "seq" entry an
	// update changes go there.
	InAnnotations bool
}

// Databases is the example API's Database resource, which apigen's example-apiserver serves:
// padded and sequenced in spec.parameters.
var Databases = APIResource{Group: Group, Version: Version, Resource: Resource, Kind: Kind, Spec: `{"engine":"postgres"}`}

// Flunders is k8s.io/sample-apiserver's wardle.example.com/v1alpha1 Flunder, the anchor's
// resource (loadgen's -anchor-binary): its spec (reference, referenceType) has no map, so the
// objects are padded and sequenced in metadata.annotations, to the same size as Databases'.
var Flunders = APIResource{Group: "wardle.example.com", Version: "v1alpha1", Resource: "flunders", Kind: "Flunder",
	Spec: `{}`, InAnnotations: true}

// path returns the URL path of the resource's collection in namespace:
// /apis/<group>/<version>/namespaces/<namespace>/<resource>.
func (r *APIResource) path(namespace string) string {
	return "/apis/" + r.Group + "/" + r.Version + "/namespaces/" + namespace + "/" + r.Resource
}

// ObjectTemplate renders JSON objects of one APIResource at a fixed approximate size: a
// padding map (spec.parameters of a Database, metadata.annotations of a Flunder) fills the
// object to the size asked for, and a "seq" entry in it that an update changes makes every
// update a real write.
type ObjectTemplate struct {
	res *APIResource
	// params is the encoded padding parameters without the enclosing braces, e.g.
	// `"p000":"xxxx","p001":"xxxx"`.
	params []byte
}

// NewObjectTemplate returns a template of Databases whose objects encode to about size
// bytes, see NewObjectTemplateFor.
func NewObjectTemplate(size int) (*ObjectTemplate, error) {
	return NewObjectTemplateFor(Databases, size)
}

// NewObjectTemplateFor returns a template of res whose objects encode to about size bytes
// (within a few bytes, for names of up to 20 characters) of compact JSON. size must be at
// least 256.
func NewObjectTemplateFor(res APIResource, size int) (*ObjectTemplate, error) {
	if size < 256 {
		return nil, fmt.Errorf("cannot build object template: size %d is below 256 bytes", size)
	}
	t := &ObjectTemplate{res: &res}
	base := len(t.Render(nil, "bench-object-0000000", "", 0)) // the name length of a typical object
	// Each entry "pNNN":"<16 x's>", costs 6+1+18+1 = 26 bytes; the last one is padded to fit.
	var params []byte
	for i := 0; ; i++ {
		remaining := size - base - len(params)
		if remaining <= 0 {
			break
		}
		value := 16
		if remaining < 26+26 { // last entry: take the rest exactly (at least one x)
			value = max(1, remaining-10)
		}
		if len(params) > 0 {
			params = append(params, ',')
		}
		params = fmt.Appendf(params, `"p%03d":%q`, i, repeat('x', value))
	}
	t.params = params
	return t, nil
}

// Resource returns the resource the template renders.
func (t *ObjectTemplate) Resource() APIResource { return *t.res }

// repeat returns a string of n bytes b.
func repeat(b byte, n int) string {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return string(s)
}

// Render appends to dst the JSON of the template's object name in the template's shape,
// with metadata.resourceVersion set to resourceVersion unless it is "", and the padding
// map's "seq" entry set to seq, and returns the extended buffer. The namespace comes from the
// request path.
func (t *ObjectTemplate) Render(dst []byte, name, resourceVersion string, seq int) []byte {
	dst = append(dst, `{"apiVersion":"`...)
	dst = append(dst, t.res.Group...)
	dst = append(dst, '/')
	dst = append(dst, t.res.Version...)
	dst = append(dst, `","kind":"`...)
	dst = append(dst, t.res.Kind...)
	dst = append(dst, `","metadata":{"name":`...)
	dst = strconv.AppendQuote(dst, name)
	if resourceVersion != "" {
		dst = append(dst, `,"resourceVersion":`...)
		dst = strconv.AppendQuote(dst, resourceVersion)
	}
	if t.res.InAnnotations {
		dst = append(dst, `,"annotations":`...)
		dst = t.appendPadding(dst, seq)
		dst = append(dst, `},"spec":`...)
		dst = append(dst, t.res.Spec...)
		return append(dst, '}')
	}
	// The spec with "parameters" added: Spec without its closing brace.
	dst = append(dst, `},"spec":`...)
	dst = append(dst, t.res.Spec[:len(t.res.Spec)-1]...)
	if len(t.res.Spec) > 2 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"parameters":`...)
	dst = t.appendPadding(dst, seq)
	return append(dst, "}}"...)
}

// appendPadding appends the padding map with its "seq" entry.
func (t *ObjectTemplate) appendPadding(dst []byte, seq int) []byte {
	dst = append(dst, `{"seq":"`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, '"')
	if len(t.params) > 0 {
		dst = append(dst, ',')
		dst = append(dst, t.params...)
	}
	return append(dst, '}')
}

// objectMeta is the part of a served object or list the benchmark reads.
type objectMeta struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
}

// decodeMeta decodes the metadata of a served object.
func decodeMeta(data []byte) (objectMeta, error) {
	var m objectMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("cannot decode object metadata: %w", err)
	}
	return m, nil
}

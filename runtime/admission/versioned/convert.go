package versioned

import (
	"bytes"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Converter converts admitted objects between their internal and versioned forms through
// Scheme. Safe for concurrent use.
type Converter struct {
	Scheme *runtime.Scheme
	json   runtime.Serializer
}

// NewConverter returns a converter over scheme.
func NewConverter(scheme *runtime.Scheme) *Converter {
	return &Converter{Scheme: scheme, json: json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{})}
}

// ToVersion returns a copy of obj (internal, or an *unstructured.Unstructured custom
// resource) as kind gvk: converted through the scheme, or with apiVersion set. nil gives nil.
// Errors: the scheme cannot convert obj to gvk's version.
func (c *Converter) ToVersion(obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		out := u.DeepCopy()
		out.SetAPIVersion(gvk.GroupVersion().String())
		return out, nil
	}
	out, err := c.Scheme.ConvertToVersion(obj, gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("cannot convert to %v: %w", gvk, err)
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, nil
}

// Encode returns the JSON of a versioned object (with apiVersion and kind).
func (c *Converter) Encode(obj runtime.Object) ([]byte, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.MarshalJSON()
	}
	var buf bytes.Buffer
	if err := c.json.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Decode reads data, the JSON of a kind gvk object (a patched object), into a new object of
// that kind (an *unstructured.Unstructured when like is one), defaulted as the scheme
// defaults decoded bodies. Errors: data is not such an object.
func (c *Converter) Decode(data []byte, gvk schema.GroupVersionKind, like runtime.Object) (runtime.Object, error) {
	if _, ok := like.(*unstructured.Unstructured); ok {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		return u, nil
	}
	into, err := c.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	out, _, err := c.json.Decode(data, &gvk, into)
	if err != nil {
		return nil, err
	}
	c.Scheme.Default(out)
	return out, nil
}

// Into converts versioned back to the version of internal and copies the result over
// internal in place (the admission chain's object is changed where it lies). Errors: the
// scheme cannot convert, or the types differ.
func (c *Converter) Into(versioned, internal runtime.Object) error {
	if u, ok := internal.(*unstructured.Unstructured); ok {
		v, ok := versioned.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("cannot convert %T into a custom resource", versioned)
		}
		apiVersion := u.GetAPIVersion()
		u.Object = v.DeepCopy().Object
		u.SetAPIVersion(apiVersion)
		return nil
	}
	kinds, _, err := c.Scheme.ObjectKinds(internal)
	if err != nil {
		return err
	}
	out, err := c.Scheme.ConvertToVersion(versioned, kinds[0].GroupVersion())
	if err != nil {
		return err
	}
	dst, src := reflect.ValueOf(internal), reflect.ValueOf(out)
	if dst.Type() != src.Type() {
		return fmt.Errorf("cannot convert %T into %T", out, internal)
	}
	gvk := internal.GetObjectKind().GroupVersionKind()
	dst.Elem().Set(src.Elem())
	internal.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}

// ToMap returns the JSON shape of a versioned object (map[string]any with int64 integers),
// as CEL expressions see it; nil gives nil.
func (c *Converter) ToMap(obj runtime.Object) (map[string]any, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.Object, nil
	}
	data, err := c.Encode(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// VersionedMap returns obj (internal; nil gives nil) as kind gvk's JSON shape: ToVersion then
// ToMap, what CEL expressions see.
func (c *Converter) VersionedMap(obj runtime.Object, gvk schema.GroupVersionKind) (map[string]any, error) {
	v, err := c.ToVersion(obj, gvk)
	if err != nil {
		return nil, err
	}
	return c.ToMap(v)
}

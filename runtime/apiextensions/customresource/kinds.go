package customresource

import (
	"fmt"
	"io"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion"
	"github.com/apigen-dev/apigen/runtime/endpoints"
	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
)

// typedScheme returns the scheme of the typed kinds a custom resource group serves beside
// its unstructured objects: autoscaling/v1 Scale (the scale subresource) and meta's
// unversioned kinds (Status), as apiextensions-apiserver's crdHandler delegates to its
// Scheme. It is built at the first call (a server that serves no custom resource never
// builds it) and shared.
var typedScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := autoscalingv1.AddToScheme(s); err != nil {
		panic(err)
	}
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	return s
})

// groupKinds implements runtime.ObjectCreater, ObjectTyper, ObjectDefaulter and
// ObjectConvertor for one custom resource group: its kinds are *unstructured.Unstructured
// (lists *unstructured.UnstructuredList), defaulted with their version's schema and converted
// between versions by their resource's conversion webhook, or by changing apiVersion only
// (conversion strategy None), as apiextensions-apiserver's unstructuredCreator,
// UnstructuredObjectTyper, unstructuredDefaulter, webhookConverter and nopConverter. Other
// kinds go to typedScheme.
type groupKinds struct {
	group string
	// byKind maps Kind and ListKind to the resource serving them.
	byKind map[string]*resource
}

var (
	_ runtime.ObjectCreater   = (*groupKinds)(nil)
	_ runtime.ObjectTyper     = (*groupKinds)(nil)
	_ runtime.ObjectDefaulter = (*groupKinds)(nil)
	_ runtime.ObjectConvertor = (*groupKinds)(nil)
)

// endpointsKinds returns k as the runtime/endpoints Kinds of the group, with serializers that
// prune unknown fields (reported as strict decoding errors by strict ones).
func (k *groupKinds) endpointsKinds() endpoints.Kinds {
	return endpoints.Kinds{
		Creater: k, Typer: k, Defaulter: k, Convertor: k, UnsafeConvertor: unsafeConvertor{k},
		NewSerializer: func(opts json.SerializerOptions) runtime.Serializer {
			return &pruningSerializer{Serializer: jsonserializer.NewSerializer(k, k, opts), kinds: k, strict: opts.Strict}
		},
	}
}

// versionOf returns the served version of gvk (nil when not served), and whether gvk is one
// of the group's kinds.
func (k *groupKinds) versionOf(gvk schema.GroupVersionKind) (*Version, bool) {
	if gvk.Group != k.group {
		return nil, false
	}
	r := k.byKind[gvk.Kind]
	if r == nil {
		return nil, false
	}
	return r.def.version(gvk.Version), true
}

// New returns an empty *unstructured.Unstructured (or UnstructuredList for a ListKind) of
// gvk for the group's kinds.
func (k *groupKinds) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if gvk.Group != k.group {
		return typedScheme().New(gvk)
	}
	r := k.byKind[gvk.Kind]
	switch {
	case r == nil || r.def.version(gvk.Version) == nil && gvk.Version != r.def.StorageVersion:
		return nil, runtime.NewNotRegisteredErrForKind("customresource", gvk)
	case gvk.Kind == r.def.Names.listKind():
		l := &unstructured.UnstructuredList{Object: map[string]any{}}
		l.SetGroupVersionKind(gvk)
		return l, nil
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// ObjectKinds returns the kind an unstructured object names, or typedScheme's kinds.
func (k *groupKinds) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	if _, ok := obj.(runtime.Unstructured); !ok {
		return typedScheme().ObjectKinds(obj)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return nil, false, runtime.NewMissingKindErr("object has no kind field")
	}
	if gvk.Version == "" {
		return nil, false, runtime.NewMissingVersionErr("object has no apiVersion field")
	}
	return []schema.GroupVersionKind{gvk}, false, nil
}

// Recognizes reports whether gvk is a served kind of the group or one typedScheme knows.
func (k *groupKinds) Recognizes(gvk schema.GroupVersionKind) bool {
	if gvk.Group != k.group {
		return typedScheme().Recognizes(gvk)
	}
	_, err := k.New(gvk)
	return err == nil
}

// Default applies the schema defaults of obj's version (every item's, for a list).
func (k *groupKinds) Default(obj runtime.Object) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		if v, ok := k.versionOf(o.GroupVersionKind()); ok && v != nil && v.Schema != nil {
			v.Schema.Default(o.Object)
		}
	case *unstructured.UnstructuredList:
		for i := range o.Items {
			k.Default(&o.Items[i])
		}
	default:
		typedScheme().Default(obj)
	}
}

// Convert copies in (unstructured) into out of the same type; typed objects go to
// typedScheme.
func (k *groupKinds) Convert(in, out, context any) error {
	switch i := in.(type) {
	case *unstructured.Unstructured:
		o, ok := out.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("cannot convert %T to %T", in, out)
		}
		o.Object = i.DeepCopy().Object
		return nil
	case *unstructured.UnstructuredList:
		o, ok := out.(*unstructured.UnstructuredList)
		if !ok {
			return fmt.Errorf("cannot convert %T to %T", in, out)
		}
		*o = *i.DeepCopy()
		return nil
	}
	return typedScheme().Convert(in, out, context)
}

// webhookFor returns the conversion webhook converting in (unstructured, of the group) to the
// group version target chooses, when in's resource has one and in is in another version.
func (k *groupKinds) webhookFor(in runtime.Object, target runtime.GroupVersioner) (*conversion.Webhook, schema.GroupVersion, bool) {
	gvk := in.GetObjectKind().GroupVersionKind()
	r := k.byKind[gvk.Kind]
	if gvk.Group != k.group || r == nil || r.converter == nil {
		return nil, schema.GroupVersion{}, false
	}
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{gvk})
	if !ok || to.Group != k.group {
		return nil, schema.GroupVersion{}, false
	}
	if _, isList := in.(*unstructured.UnstructuredList); !isList && to.Version == gvk.Version {
		return nil, schema.GroupVersion{}, false
	}
	return r.converter, to.GroupVersion(), true
}

// ConvertToVersion returns a copy of in in the group version target chooses for its kind
// (every item, for a list): converted by the resource's conversion webhook, as
// apiextensions-apiserver's webhookConverter, or with only apiVersion changed, as its
// nopConverter for conversion strategy None. Typed objects go to typedScheme. Errors of a
// webhook are 500 Statuses with kube's message (runtime/apiextensions/conversion).
func (k *groupKinds) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if w, to, ok := k.webhookFor(in, target); ok {
		if l, isList := in.(*unstructured.UnstructuredList); isList {
			in = l.DeepCopy() // the result shares the items already in to
		}
		return w.Convert(in, to)
	}
	switch i := in.(type) {
	case *unstructured.Unstructured:
		gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{i.GroupVersionKind()})
		if !ok {
			return nil, fmt.Errorf("cannot convert %s to %v", i.GroupVersionKind(), target)
		}
		out := i.DeepCopy()
		out.SetGroupVersionKind(gvk)
		return out, nil
	case *unstructured.UnstructuredList:
		out := i.DeepCopy()
		gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{i.GroupVersionKind()})
		if !ok {
			return nil, fmt.Errorf("cannot convert %s to %v", i.GroupVersionKind(), target)
		}
		out.SetGroupVersionKind(gvk)
		for n := range out.Items {
			item := &out.Items[n]
			igvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{item.GroupVersionKind()})
			if !ok {
				return nil, fmt.Errorf("cannot convert %s to %v", item.GroupVersionKind(), target)
			}
			item.SetGroupVersionKind(igvk)
		}
		return out, nil
	}
	return typedScheme().ConvertToVersion(in, target)
}

// ConvertFieldLabel accepts every label as is (field selectors are checked by the Store).
func (k *groupKinds) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// unsafeConvertor is groupKinds' convertor for encoding responses, as
// runtime.UnsafeObjectConvertor: its results share memory with its input (only the
// top-level maps are copied to change apiVersion; an object or list already in the target
// version is returned as it is), so encoding a list page copies no objects.
type unsafeConvertor struct{ *groupKinds }

// ConvertToVersion returns in, or a shallow copy of it with the apiVersion target chooses;
// objects of a resource with a conversion webhook go through it (converted objects are new,
// the others shared).
func (c unsafeConvertor) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if w, to, ok := c.webhookFor(in, target); ok {
		return w.Convert(in, to)
	}
	switch i := in.(type) {
	case *unstructured.Unstructured:
		return withKind(i, target)
	case *unstructured.UnstructuredList:
		list, err := withKind(&unstructured.Unstructured{Object: i.Object}, target)
		if err != nil {
			return nil, err
		}
		out := &unstructured.UnstructuredList{Object: list.Object, Items: make([]unstructured.Unstructured, len(i.Items))}
		for n := range i.Items {
			item, err := withKind(&i.Items[n], target)
			if err != nil {
				return nil, err
			}
			out.Items[n] = *item
		}
		return out, nil
	}
	return c.groupKinds.ConvertToVersion(in, target)
}

// withKind returns u when it already has the kind target chooses, else a copy of u's
// top-level map with that apiVersion and kind.
func withKind(u *unstructured.Unstructured, target runtime.GroupVersioner) (*unstructured.Unstructured, error) {
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("cannot convert %s to %v", u.GroupVersionKind(), target)
	}
	if gvk == u.GroupVersionKind() {
		return u, nil
	}
	out := &unstructured.Unstructured{Object: make(map[string]any, len(u.Object))}
	for k, v := range u.Object {
		out.Object[k] = v
	}
	out.SetGroupVersionKind(gvk)
	return out, nil
}

// pruningSerializer decodes bodies as its Serializer does, then coerces the metadata of an
// unstructured object of the group to metav1.ObjectMeta (coerceMetadata: malformed metadata
// is an error, 400) and prunes unknown fields with its version's schema, as
// apiextensions-apiserver's schemaCoercingDecoder: a strict serializer reports each as a runtime.StrictDecodingError
// `unknown field "spec.foo"` (with the pruned object), a lenient one drops them silently.
type pruningSerializer struct {
	runtime.Serializer
	kinds  *groupKinds
	strict bool
}

// Decode implements runtime.Decoder.
func (s *pruningSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := s.Serializer.Decode(data, defaults, into)
	var strictErrs []error
	if err != nil {
		se, ok := runtime.AsStrictDecodingError(err)
		if !ok || obj == nil {
			return obj, gvk, err
		}
		strictErrs = append(strictErrs, se.Errors()...)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind().Group == s.kinds.group {
		unknown, err := coerceMetadata(u.Object)
		if err != nil {
			return nil, gvk, err
		}
		for _, path := range unknown {
			strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
		}
		if v, ok := s.kinds.versionOf(u.GroupVersionKind()); ok && v != nil && v.Schema != nil {
			for _, path := range v.Schema.Prune(u.Object) {
				strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
			}
		}
	}
	if len(strictErrs) > 0 && s.strict {
		return obj, gvk, runtime.NewStrictDecodingError(strictErrs)
	}
	return obj, gvk, nil
}

// Encode implements runtime.Encoder.
func (s *pruningSerializer) Encode(obj runtime.Object, w io.Writer) error {
	return s.Serializer.Encode(obj, w)
}

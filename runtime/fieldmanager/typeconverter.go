package fieldmanager

import (
	"fmt"
	"maps"
	"reflect"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/apigen-dev/apigen/runtime/openapi"
)

// NewTypeConverter returns the TypeConverter of every kind of scheme that defs describes, as
// kube-apiserver builds one from the OpenAPI models of a group's resources
// (BuildOpenAPIDefinitionsForResources, then managedfields.NewTypeConverter): definitions are
// named by openapi.NewDefinitionNamer(scheme), which marks kinds with
// x-kubernetes-group-version-kind, and their x-kubernetes-list-type, -list-map-keys and
// -map-type extensions decide how fields merge. Errors: a definition that refers to a type
// defs does not describe, or models structured-merge-diff cannot read.
func NewTypeConverter(scheme *runtime.Scheme, defs common.GetOpenAPIDefinitions) (managedfields.TypeConverter, error) {
	return newTypeConverter(openapi.NewDefinitionNamer(scheme), defs)
}

// DeferredTypeConverter returns a function that builds, at its first call and once, the
// TypeConverter NewTypeConverter(scheme, defs) returns now: the definitions are named from
// scheme as it is when DeferredTypeConverter is called (types registered later do not
// change the result), and every call returns the first call's converter and error; it is
// safe for concurrent use. Building the models is most of what a server allocates while it
// starts (about 11 MiB for the example server's groups, of which 0.7 MiB stays live), and a
// server at rest never needs them: its first write does.
func DeferredTypeConverter(scheme *runtime.Scheme, defs common.GetOpenAPIDefinitions) func() (managedfields.TypeConverter, error) {
	namer := openapi.NewDefinitionNamer(scheme)
	return sync.OnceValues(func() (managedfields.TypeConverter, error) { return newTypeConverter(namer, defs) })
}

// newTypeConverter is NewTypeConverter with the definitions named by namer.
func newTypeConverter(namer *openapi.DefinitionNamer, defs common.GetOpenAPIDefinitions) (managedfields.TypeConverter, error) {
	models, err := models(namer, defs)
	if err != nil {
		return nil, err
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, fmt.Errorf("cannot build the type converter: %w", err)
	}
	return newStructuredConverter(tc, models)
}

// structuredConverter is managedfields' TypeConverter of a set of models (the same parser,
// indexed by x-kubernetes-group-version-kind, as managedfields.NewTypeConverter builds it),
// except that it converts a Go object (a typed, not unstructured, object) without
// structured-merge-diff's validation walk: the models are generated from the Go types
// themselves, so the walk can only find list-map items that lack a key, which
// structured-merge-diff's comparison and merge report as errors too; the walk was half the
// cost of converting an object. A Go object is read into the unstructured data
// structured-merge-diff's reflection of it reads (reflectUnstructured), which its walks
// compare and merge about twice as fast as they reflect. Unstructured objects (custom
// resources, apply configurations) are validated as ever. A kind the models lack goes to
// managedfields' own converter, whose error the field manager recognises.
type structuredConverter struct {
	library managedfields.TypeConverter
	types   map[schema.GroupVersionKind]typed.ParseableType
}

// newStructuredConverter builds the structuredConverter of models around library,
// managedfields' TypeConverter of the same models.
func newStructuredConverter(library managedfields.TypeConverter, models map[string]*spec.Schema) (*structuredConverter, error) {
	ts, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		return nil, fmt.Errorf("cannot build the type converter: %w", err)
	}
	parser := &typed.Parser{Schema: smdschema.Schema{Types: ts.Types}}
	c := &structuredConverter{library: library, types: map[schema.GroupVersionKind]typed.ParseableType{}}
	for name, model := range models {
		gvks, _ := model.Extensions[openapi.ExtensionGVK].([]any)
		for _, e := range gvks {
			m, _ := e.(map[string]any)
			g, _ := m["group"].(string)
			v, _ := m["version"].(string)
			if k, _ := m["kind"].(string); k != "" {
				c.types[schema.GroupVersionKind{Group: g, Version: v, Kind: k}] = parser.Type(name)
			}
		}
	}
	return c, nil
}

// ObjectToTyped converts obj: a Go object without validation (as unstructured data, or by
// reflection when reflectUnstructured cannot read it), an unstructured one as managedfields'
// TypeConverter does.
func (c *structuredConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	t, ok := c.types[obj.GetObjectKind().GroupVersionKind()]
	if !ok {
		return c.library.ObjectToTyped(obj, opts...)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return t.FromUnstructured(u.UnstructuredContent(), opts...)
	}
	if u, ok := reflectUnstructured(obj); ok {
		return typed.AsTypedUnvalidated(value.NewValueInterface(u), t.Schema, t.TypeRef), nil
	}
	v, err := value.NewValueReflect(obj)
	if err != nil {
		return nil, err
	}
	return typed.AsTypedUnvalidated(v, t.Schema, t.TypeRef), nil
}

// TypedToObject returns the unstructured object of v, as managedfields' TypeConverter.
func (c *structuredConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	if m, ok := v.AsValue().Unstructured().(map[string]any); ok {
		return &unstructured.Unstructured{Object: m}, nil
	}
	return nil, fmt.Errorf("failed to convert value to unstructured for type %T", v.AsValue().Unstructured())
}

// Models returns the OpenAPI v3 schemas of every kind of scheme that defs describes and of
// every type they reach, keyed by definition name ("com.example.db.v1.Database",
// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), with references between them as
// "#/components/schemas/<name>". Errors: a definition that refers to a type defs does not
// describe.
func Models(scheme *runtime.Scheme, defs common.GetOpenAPIDefinitions) (map[string]*spec.Schema, error) {
	return models(openapi.NewDefinitionNamer(scheme), defs)
}

// models is Models with the definitions named by namer.
func models(namer *openapi.DefinitionNamer, defs common.GetOpenAPIDefinitions) (map[string]*spec.Schema, error) {
	var roots []string
	for name := range defs(func(string) spec.Ref { return spec.Ref{} }) {
		if _, ext := namer.GetDefinitionName(name); ext != nil {
			roots = append(roots, name)
		}
	}
	sort.Strings(roots)
	models, err := builder3.BuildOpenAPIDefinitionsForResources(&common.OpenAPIV3Config{
		Info:              &spec.Info{InfoProps: spec.InfoProps{Title: "models", Version: "unversioned"}},
		GetDefinitions:    defs,
		GetDefinitionName: namer.GetDefinitionName,
	}, roots...)
	if err != nil {
		return nil, fmt.Errorf("cannot build the OpenAPI models: %w", err)
	}
	return models, nil
}

// withoutManagedFields converts objects to structured-merge-diff values without their
// metadata.managedFields, which the field manager never diffs or merges (they are stripped
// from every field set, and written back after each operation): converting them (a
// reflective walk and a JSON decode of every fieldsV1) was most of an update's field
// management. The object is not changed: a shallow copy without them is converted.
type withoutManagedFields struct {
	managedfields.TypeConverter
}

// ObjectToTyped converts obj without its managedFields.
func (c withoutManagedFields) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return c.TypeConverter.ObjectToTyped(shallowWithoutManagedFields(obj), opts...)
}

// shallowWithoutManagedFields returns obj itself when it has no managedFields, else a shallow
// copy of it (sharing everything but the top-level struct, or map and metadata map) whose
// managedFields are nil.
func shallowWithoutManagedFields(obj runtime.Object) runtime.Object {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		md, ok := u.Object["metadata"].(map[string]any)
		if !ok || md["managedFields"] == nil {
			return obj
		}
		out := &unstructured.Unstructured{Object: maps.Clone(u.Object)}
		md = maps.Clone(md)
		delete(md, "managedFields")
		out.Object["metadata"] = md
		return out
	}
	m, err := meta.Accessor(obj)
	if err != nil || len(m.GetManagedFields()) == 0 {
		return obj
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return obj
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	out, ok := cp.Interface().(runtime.Object)
	if !ok {
		return obj
	}
	if m, err := meta.Accessor(out); err == nil {
		m.SetManagedFields(nil)
	}
	return out
}

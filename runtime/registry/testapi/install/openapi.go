package install

import (
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/openapi/apimachinery"
)

// versionPackages are the Go packages of the versioned types, whose type names key the
// definitions.
var versionPackages = map[string]string{
	"v1":      "github.com/apigen-dev/apigen/runtime/registry/testapi/v1",
	"v1beta1": "github.com/apigen-dev/apigen/runtime/registry/testapi/v1beta1",
}

// OpenAPIDefinitions returns the schemas of the test group's versioned types (the color
// field is "color" in v1 and "colour" in v1beta1; ports are a list map keyed by name, as
// +listType=map +listMapKey=name would make them) and of the apimachinery types they reach.
func OpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := apimachinery.GetOpenAPIDefinitions(ref)
	for version, pkg := range versionPackages {
		color := "color"
		if version == "v1beta1" {
			color = "colour"
		}
		object := func(props map[string]spec.Schema, deps ...string) common.OpenAPIDefinition {
			return common.OpenAPIDefinition{Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}},
				Dependencies: deps}
		}
		str := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}}
		i32 := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"integer"}, Format: "int32"}}
		refTo := func(name string) spec.Schema { return spec.Schema{SchemaProps: spec.SchemaProps{Ref: ref(name)}} }
		list := func(item string) spec.Schema {
			return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"},
				Items: &spec.SchemaOrArray{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Ref: ref(item)}}}}}
		}
		objectMeta, listMeta := "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
		ports := list(pkg + ".WidgetPort")
		ports.Extensions = spec.Extensions{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}}
		defs[pkg+".Widget"] = object(map[string]spec.Schema{"apiVersion": str, "kind": str, "metadata": refTo(objectMeta),
			"spec": refTo(pkg + ".WidgetSpec"), "status": refTo(pkg + ".WidgetStatus")}, objectMeta, pkg+".WidgetSpec", pkg+".WidgetStatus")
		defs[pkg+".WidgetSpec"] = object(map[string]spec.Schema{"size": i32, color: str, "ports": ports}, pkg+".WidgetPort")
		defs[pkg+".WidgetPort"] = object(map[string]spec.Schema{"name": str, "port": i32})
		defs[pkg+".WidgetStatus"] = object(map[string]spec.Schema{"phase": str})
		defs[pkg+".WidgetList"] = object(map[string]spec.Schema{"apiVersion": str, "kind": str, "metadata": refTo(listMeta),
			"items": list(pkg + ".Widget")}, listMeta, pkg+".Widget")
		defs[pkg+".Gadget"] = object(map[string]spec.Schema{"apiVersion": str, "kind": str, "metadata": refTo(objectMeta),
			"spec": refTo(pkg + ".GadgetSpec")}, objectMeta, pkg+".GadgetSpec")
		defs[pkg+".GadgetSpec"] = object(map[string]spec.Schema{"owner": str})
		defs[pkg+".GadgetList"] = object(map[string]spec.Schema{"apiVersion": str, "kind": str, "metadata": refTo(listMeta),
			"items": list(pkg + ".Gadget")}, listMeta, pkg+".Gadget")
	}
	return defs
}

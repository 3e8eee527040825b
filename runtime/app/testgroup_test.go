package app

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// testGroup is a GroupBuilder for test.apigen.dev/v1 Widgets, written by hand as generated
// install code would be. The versioned types double as the internal ones.
var testGroup = widgetGroup(testapi.SchemeGroupVersion)

// widgetGroup is testGroup for the Widget types served as gv (each server has a scheme of
// its own, so two servers in one test may serve them in different groups).
func widgetGroup(gv schema.GroupVersion) GroupBuilder {
	return func(scheme *runtime.Scheme, factory registry.StorageFactory) (*registry.APIGroupInfo, error) {
		return buildWidgetGroup(gv, scheme, factory)
	}
}

func buildWidgetGroup(gv schema.GroupVersion, scheme *runtime.Scheme, factory registry.StorageFactory) (*registry.APIGroupInfo, error) {
	resource := gv.WithResource("widgets").GroupResource()
	scheme.AddKnownTypes(gv, &testapi.Widget{}, &testapi.WidgetList{})
	metav1.AddToGroupVersion(scheme, gv)
	scheme.AddKnownTypes(schema.GroupVersion{Group: gv.Group, Version: runtime.APIVersionInternal}, &testapi.Widget{}, &testapi.WidgetList{})
	st, err := factory.NewStorage(resource, gv, scheme, testapi.NewWidget)
	if err != nil {
		return nil, err
	}
	store := &registry.Store{
		NewFunc:                   testapi.NewWidget,
		NewListFunc:               testapi.NewWidgetList,
		DefaultQualifiedResource:  resource,
		SingularQualifiedResource: schema.GroupResource{Group: gv.Group, Resource: "widget"},
		Strategy:                  widgetStrategy{},
		Storage:                   st,
	}
	return &registry.APIGroupInfo{
		Group:                        gv.Group,
		PrioritizedVersions:          []schema.GroupVersion{gv},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{gv.Version: {"widgets": store}},
		Scheme:                       scheme,
		OpenAPIDefinitions:           testDefinitions,
	}, nil
}

// widgetStrategy accepts every Widget as is.
type widgetStrategy struct{}

func (widgetStrategy) NamespaceScoped() bool                                            { return true }
func (widgetStrategy) PrepareForCreate(context.Context, runtime.Object)                 {}
func (widgetStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}
func (widgetStrategy) Validate(context.Context, runtime.Object) field.ErrorList         { return nil }
func (widgetStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// testDefinitions gives every type the Widget routes use a loose object schema.
func testDefinitions(common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	names := []string{
		"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.Widget",
		"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.WidgetList",
	}
	for _, metaType := range []string{"Status", "DeleteOptions", "WatchEvent", "Patch", "ObjectMeta", "ListMeta", "Table", "APIResourceList"} {
		names = append(names, "io.k8s.apimachinery.pkg.apis.meta.v1."+metaType)
	}
	defs := map[string]common.OpenAPIDefinition{}
	for _, name := range names {
		defs[name] = common.OpenAPIDefinition{Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}}
	}
	return defs
}

// Package install assembles the test.apigen.dev test API: its Scheme, its Stores and its
// registry.APIGroupInfo, as generated install code does for a real group.
package install

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/v1beta1"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

// NewScheme returns a Scheme with the internal, v1 and v1beta1 types registered.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{testapi.AddToScheme, v1.AddToScheme, v1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("cannot build the test scheme: %w", err)
		}
	}
	return scheme, nil
}

// Stores are the storages of the test group.
type Stores struct {
	Widgets      *registry.Store
	WidgetStatus *registry.StatusStore
	Gadgets      *registry.Store
}

// NewStores builds the Stores over storage from factory, stored as v1.
func NewStores(scheme *runtime.Scheme, factory registry.StorageFactory) (*Stores, error) {
	widgetColumns, err := tableconvertor.New([]tableconvertor.Column{
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Size", Type: "integer", JSONPath: ".spec.size", Priority: 1},
	})
	if err != nil {
		return nil, err
	}
	widgets := &registry.Store{
		NewFunc:                   func() runtime.Object { return &testapi.Widget{} },
		NewListFunc:               func() runtime.Object { return &testapi.WidgetList{} },
		DefaultQualifiedResource:  schema.GroupResource{Group: testapi.GroupName, Resource: "widgets"},
		SingularQualifiedResource: schema.GroupResource{Group: testapi.GroupName, Resource: "widget"},
		Strategy:                  testapi.WidgetStrategy{},
		ShortNameList:             []string{"wd"},
		CategoryList:              []string{"all"},
		TableConvertor:            widgetColumns,
	}
	gadgets := &registry.Store{
		NewFunc:                   func() runtime.Object { return &testapi.Gadget{} },
		NewListFunc:               func() runtime.Object { return &testapi.GadgetList{} },
		DefaultQualifiedResource:  schema.GroupResource{Group: testapi.GroupName, Resource: "gadgets"},
		SingularQualifiedResource: schema.GroupResource{Group: testapi.GroupName, Resource: "gadget"},
		Strategy:                  testapi.GadgetStrategy{},
	}
	for _, s := range []*registry.Store{widgets, gadgets} {
		if s.Storage, err = factory.NewStorage(s.DefaultQualifiedResource, v1.SchemeGroupVersion, scheme, s.NewFunc); err != nil {
			return nil, fmt.Errorf("cannot create storage for %s: %w", s.DefaultQualifiedResource, err)
		}
	}
	return &Stores{Widgets: widgets, WidgetStatus: registry.NewStatusStore(widgets, testapi.WidgetStatusStrategy{}), Gadgets: gadgets}, nil
}

// NewAPIGroupInfo returns the group served in v1 (preferred) and v1beta1.
func NewAPIGroupInfo(scheme *runtime.Scheme, stores *Stores) *registry.APIGroupInfo {
	resources := map[string]rest.Storage{
		"widgets":        stores.Widgets,
		"widgets/status": stores.WidgetStatus,
		"gadgets":        stores.Gadgets,
	}
	return &registry.APIGroupInfo{
		Group:               testapi.GroupName,
		PrioritizedVersions: []schema.GroupVersion{v1.SchemeGroupVersion, v1beta1.SchemeGroupVersion},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{
			"v1": resources, "v1beta1": resources,
		},
		Scheme:             scheme,
		OpenAPIDefinitions: OpenAPIDefinitions,
	}
}

package apiextensions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/runtime/apiextensions/customresource"
	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

// TestDefinitionFor converts a CRD with two versions (one not served) into the Handler's
// Definition: accepted names, scope, served versions with schema, subresources, columns,
// selectable fields and deprecation, and the storage version.
func TestDefinitionFor(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(`
metadata: {name: crontabs.stable.example.com, uid: u-1}
spec:
  group: stable.example.com
  scope: Cluster
  names: {plural: crontabs, kind: CronTab}
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: use v1
    schema: {openAPIV3Schema: {type: object}}
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer}}}}}}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas, priority: 1, description: how many}
    selectableFields:
    - jsonPath: .spec.replicas
  - name: v0
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object}}
status:
  acceptedNames: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList, shortNames: [ct], categories: [all]}
`), crd); err != nil {
		t.Fatal(err)
	}
	got, err := DefinitionFor(crd)
	if err != nil {
		t.Fatal(err)
	}
	want := customresource.Definition{
		Group: "stable.example.com", UID: "u-1", StorageVersion: "v1",
		Names: customresource.Names{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList",
			ShortNames: []string{"ct"}, Categories: []string{"all"}},
		Versions: []customresource.Version{
			{Name: "v1beta1", Deprecated: true, DeprecationWarning: "use v1", OpenAPISchema: map[string]any{"type": "object"}},
			{Name: "v1", Status: true,
				OpenAPISchema: map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object",
					"properties": map[string]any{"replicas": map[string]any{"type": "integer"}}}}},
				Scale:            &customresource.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
				PrinterColumns:   []tableconvertor.Column{{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas", Priority: 1, Description: "how many"}},
				SelectableFields: []string{"spec.replicas"}},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(customresource.Version{}, "Schema")); diff != "" {
		t.Errorf("DefinitionFor (-want +got):\n%s", diff)
	}
	for _, v := range got.Versions {
		if v.Schema == nil {
			t.Errorf("version %s has no structural schema", v.Name)
		}
	}
}

package crdopenapi

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/openapi"
)

// Model names of the apimachinery types custom resource definitions refer to.
const (
	objectMetaModel = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMetaModel   = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
)

// Descriptions of the properties every kind has, as Kubernetes' TypeMeta and ObjectMeta
// document them.
const (
	apiVersionDoc = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	kindDoc       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	metadataDoc   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	listMetaDoc   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// Form is the form of the definitions: the published OpenAPI v3 or v2 documents, or the
// models of field management (no value validations, no nullable).
type Form int

// The forms of the definitions.
const (
	V3 Form = iota
	V2
	Models
)

// Version is one served version of a custom resource.
type Version struct {
	// Group, Version, Kind and ListKind name the kinds ("stable.example.com", "v1",
	// "CronTab", "CronTabList").
	Group, Version, Kind, ListKind string
	// Schema is the version's openAPIV3Schema as generic JSON (map[string]any, []any, string,
	// bool, float64 or int64), nil when the version has none.
	Schema map[string]any
}

// kindSchema returns the definition of v's kind in form f.
func kindSchema(v Version, f Form, ref common.ReferenceCallback) (spec.Schema, error) {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	preserve, _ := v.Schema["x-kubernetes-preserve-unknown-fields"].(bool)
	if v.Schema != nil && !(f == V2 && preserve) {
		parsed, err := fromJSON(v.Schema)
		if err != nil {
			return s, fmt.Errorf("cannot build the OpenAPI definition of %s/%s %s: %w", v.Group, v.Version, v.Kind, err)
		}
		s = *convert(parsed, f)
		setTypeMeta(&s)
		s.SetProperty("metadata", *refSchema(ref(objectMetaModel), metadataDoc))
		embedded(&s, f, ref)
	}
	s.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": v.Group, "version": v.Version, "kind": v.Kind}})
	return s, nil
}

// listSchema returns the definition of v's list kind.
func listSchema(v Version, ref common.ReferenceCallback) spec.Schema {
	items := spec.ArrayProperty(refSchema(ref(openapi.KindModelName(v.Group, v.Version, v.Kind)), ""))
	items.Description = "List of " + v.Kind + " objects. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
	s := new(spec.Schema).Typed("object", "").WithDescription(v.ListKind+" is a list of "+v.Kind).WithRequired("items").
		SetProperty("items", *items).SetProperty("metadata", *refSchema(ref(listMetaModel), listMetaDoc))
	setTypeMeta(s)
	s.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": v.Group, "version": v.Version, "kind": v.ListKind}})
	return *s
}

// fromJSON decodes a generic JSON schema into a spec.Schema.
func fromJSON(m map[string]any) (*spec.Schema, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	s := &spec.Schema{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// refSchema is a schema referring to ref, with a description.
func refSchema(ref spec.Ref, description string) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Ref: ref, Description: description}}
}

// setTypeMeta adds the apiVersion and kind properties.
func setTypeMeta(s *spec.Schema) {
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription(apiVersionDoc))
	s.SetProperty("kind", *spec.StringProperty().WithDescription(kindDoc))
}

// embedded adds apiVersion, kind and metadata (required apiVersion and kind) to every
// x-kubernetes-embedded-resource node below s, as upstream's addEmbeddedProperties; in v2 not
// under x-kubernetes-preserve-unknown-fields, which kubectl would then validate strictly.
func embedded(s *spec.Schema, f Form, ref common.ReferenceCallback) {
	for name, p := range s.Properties {
		embedded(&p, f, ref)
		if isTrue(p.Extensions, "x-kubernetes-embedded-resource") && !(f == V2 && isTrue(p.Extensions, "x-kubernetes-preserve-unknown-fields")) {
			setTypeMeta(&p)
			p.SetProperty("metadata", *refSchema(ref(objectMetaModel), metadataDoc))
			for _, req := range []string{"kind", "apiVersion"} {
				if !slices.Contains(p.Required, req) {
					p.Required = append(p.Required, req)
				}
			}
		}
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		embedded(s.Items.Schema, f, ref)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		embedded(s.AdditionalProperties.Schema, f, ref)
	}
}

// isTrue reports whether extension name is true in ext.
func isTrue(ext spec.Extensions, name string) bool {
	v, ok := ext.GetBool(name)
	return ok && v
}

// Package openapimarkers registers the markers the openapi generator (generators/openapi)
// owns: gengo's and kube-openapi's markers of a schema's shape (optional and required, list,
// map and struct types, nullable, enums) and openapi-gen's tags. The validation and crd
// generators read the same markers from the model; by the owner rule (markers.Definition)
// they are registered here only. It is a package of its own, beside the generator, so that
// the loader can read the registrations without importing the generator (whose tests load
// API packages).
package openapimarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "openapi"

// Register registers the openapi generator's markers in reg.
func Register(reg *markers.Registry) {
	field, fieldOrType := markers.FieldLevel, markers.FieldLevel|markers.TypeLevel
	granular := []string{"atomic", "granular"}
	reg.MustRegister(
		markers.Definition{Name: "optional", Level: field, Owner: Owner,
			Apply: markers.Flag("optional", func(m *model.Markers) *bool { return &m.Optional }),
			Help:  "The field is optional."},
		markers.Definition{Name: "required", Level: field, Owner: Owner,
			Apply: markers.Flag("required", func(m *model.Markers) *bool { return &m.Required }),
			Help:  "The field is required: its JSON key is present and not null."},
		markers.Definition{Name: "nullable", Level: field, Owner: Owner,
			Apply: markers.ValidationFlag("nullable", func(v *model.Validation) *bool { return &v.Nullable }),
			Help:  "null is a valid value (nullable: true)."},
		markers.Definition{Name: "enum", Level: markers.TypeLevel, Owner: Owner, Apply: markers.EnumMarker("enum"),
			Help: "On a string type: its constants are listed as the schema's enum."},
		markers.Definition{Name: "listType", Level: fieldOrType, Owner: Owner,
			Apply: markers.String("listType", func(m *model.Markers) *string { return &m.ListType }),
			Args:  "=atomic|set|map", Help: "How a list merges in server-side apply (x-kubernetes-list-type)."},
		markers.Definition{Name: "listMapKey", Level: field, Owner: Owner, Apply: markers.ListMapKey,
			Args: "=<key>", Help: "A key of a listType=map list's items (repeatable)."},
		markers.Definition{Name: "mapType", Level: fieldOrType, Owner: Owner,
			Apply: markers.Choice("mapType", granular, func(m *model.Markers) *string { return &m.MapType }),
			Args:  "=atomic|granular", Help: "Whether a map merges as a whole or key by key (x-kubernetes-map-type)."},
		markers.Definition{Name: "structType", Level: fieldOrType, Owner: Owner,
			Apply: markers.Choice("structType", granular, func(m *model.Markers) *string { return &m.StructType }),
			Args:  "=atomic|granular", Help: "Whether a struct merges as a whole or field by field (x-kubernetes-map-type)."},
		markers.Definition{Name: "k8s:openapi-gen", Level: markers.PackageLevel | markers.TypeLevel, Owner: Owner,
			Apply: markers.UnlessFalse("OpenAPI definitions"),
			Args:  "=true", Help: "OpenAPI definitions are generated; =false is a warning, as apigen generates them for every type."},
		markers.Definition{Name: "k8s:openapi-model-package", Level: markers.PackageLevel, Owner: Owner,
			Unhonored: "apigen names OpenAPI definitions by Go package",
			Args:      "=<name>", Help: "The OpenAPI model package of the definitions; accepted with a warning."},
		markers.Definition{Name: "patchStrategy", Level: field, Owner: Owner,
			Unhonored: "apigen publishes no x-kubernetes-patch-strategy; strategic merge patch follows the field's patchStrategy struct tag",
			Args:      "=merge|replace", Help: "The field's strategic merge patch strategy; accepted with a warning (the struct tag is honoured)."},
		markers.Definition{Name: "patchMergeKey", Level: field, Owner: Owner,
			Unhonored: "apigen publishes no x-kubernetes-patch-merge-key; strategic merge patch follows the field's patchMergeKey struct tag",
			Args:      "=<key>", Help: "The field's strategic merge patch key; accepted with a warning (the struct tag is honoured)."},
		markers.Definition{Name: "union", Level: markers.TypeLevel, Owner: Owner,
			Unhonored: "the old union marker is not enforced; use +k8s:unionMember and +k8s:unionDiscriminator",
			Help:      "kube-openapi's old union marker; accepted with a warning."},
	)
}

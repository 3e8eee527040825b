// Package crdmarkers registers the markers the crd generator (generators/crd) owns:
// controller-tools' markers of a kind's CustomResourceDefinition (names, scope,
// subresources, printer columns, versions, metadata). The loader and the install, register
// and openapi generators read them from the model too; by the owner rule
// (markers.Definition) they are registered here only. It is a package of its own, beside
// the generator, so that the loader can read the registrations without importing the
// generator (whose tests load API packages).
package crdmarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "crd"

// Register registers the crd generator's markers in reg.
func Register(reg *markers.Registry) {
	typ, fieldOrType := markers.TypeLevel, markers.FieldLevel|markers.TypeLevel
	reg.MustRegister(
		markers.Definition{Name: "kubebuilder:resource", Level: typ, Owner: Owner, Apply: markers.Resource,
			Args: ":path=<plural>,scope=Namespaced|Cluster,shortName=a;b,categories=a;b,singular=<name>", Help: "The kind's resource names and scope."},
		markers.Definition{Name: "kubebuilder:subresource:status", Level: typ, Owner: Owner,
			Apply: markers.Flag("statusSubresource", func(m *model.Markers) *bool { return &m.StatusSub }),
			Help:  "The kind has a status subresource; the main resource ignores status changes."},
		markers.Definition{Name: "kubebuilder:subresource:scale", Level: typ, Owner: Owner, Apply: markers.Scale,
			Args: ":specpath=<path>,statuspath=<path>[,selectorpath=<path>]", Help: "The kind has a scale subresource reading those fields."},
		markers.Definition{Name: "kubebuilder:printcolumn", Level: typ, Owner: Owner, Apply: markers.PrintColumn,
			Args: ":name=<name>,type=<type>,JSONPath=<path>[,description=...][,format=...][,priority=<n>]", Help: "A column of kubectl get's table (repeatable)."},
		markers.Definition{Name: "kubebuilder:selectablefield", Level: typ, Owner: Owner, Apply: markers.SelectableField,
			Args: ":JSONPath=<path>", Help: "A field a field selector may name (repeatable)."},
		markers.Definition{Name: "kubebuilder:storageversion", Level: typ, Owner: Owner,
			Apply: markers.Flag("storageVersion", func(m *model.Markers) *bool { return &m.StorageVersion }),
			Help:  "This version of the kind is the one stored."},
		markers.Definition{Name: "kubebuilder:skipversion", Level: typ, Owner: Owner,
			Apply: markers.Flag("skipVersion", func(m *model.Markers) *bool { return &m.SkipVersion }),
			Help:  "This version of the kind gets no code and is not served."},
		markers.Definition{Name: "kubebuilder:unservedversion", Level: typ, Owner: Owner,
			Apply: markers.Flag("unservedVersion", func(m *model.Markers) *bool { return &m.UnservedVersion }),
			Help:  "This version of the kind is registered but not served."},
		markers.Definition{Name: "kubebuilder:deprecatedversion", Level: typ, Owner: Owner, Apply: markers.DeprecatedVersion,
			Args: "[:warning=\"<text>\"]", Help: "This version is deprecated; responses carry a Warning: 299 header."},
		markers.Definition{Name: "kubebuilder:metadata", Level: typ, Owner: Owner, Apply: markers.CRDMetadata,
			Args: ":annotations=<key=value>;...,labels=<key=value>;...", Help: "The metadata of the kind's CustomResourceDefinition."},
		markers.Definition{Name: "kubebuilder:skip", Level: markers.PackageLevel, Owner: Owner,
			Unhonored: "apigen generates the package's code anyway",
			Help:      "controller-gen writes no CRDs for the package; accepted with a warning."},
		markers.Definition{Name: "kubebuilder:title", Level: fieldOrType, Owner: Owner,
			Unhonored: "apigen does not write schema titles", Args: "=<title>", Help: "A schema title; accepted with a warning."},
		markers.Definition{Name: "kubebuilder:example", Level: fieldOrType, Owner: Owner,
			Unhonored: "apigen does not write schema examples", Args: "=<value>", Help: "A schema example; accepted with a warning."},
		markers.Definition{Name: "kubebuilder:externalDocs", Level: fieldOrType, Owner: Owner,
			Unhonored: "apigen writes no externalDocs into the OpenAPI schema or the CRD",
			Args:      ":url=<url>,description=<text>", Help: "A schema's external docs; accepted with a warning."},
		markers.Definition{Name: "kubebuilder:pruning:PreserveUnknownFields", Level: fieldOrType, Owner: Owner,
			Unhonored: "a typed server decodes into Go structs, which keep no unknown fields",
			Help:      "Keeps unknown fields in a CRD; accepted with a warning, as Go structs keep none."},
	)
}

// Package defaultingmarkers registers the markers the defaulting generator
// (generators/defaulting) owns: gengo's and controller-tools' defaults and defaulter-gen's
// tags. The openapi and crd generators publish the same defaults; by the owner rule
// (markers.Definition) they are registered here only. It is a package of its own, beside the
// generator, so that the loader can read the registrations without importing the generator
// (whose tests load API packages).
package defaultingmarkers

import "github.com/apigen-dev/apigen/generators/markers"

// Owner is the generator these markers belong to.
const Owner = "defaulting"

// Register registers the defaulting generator's markers in reg.
func Register(reg *markers.Registry) {
	reg.MustRegister(
		markers.Definition{Name: "default", Level: markers.FieldLevel, Owner: Owner, Apply: markers.JSONDefault,
			Args: "=<json>", Help: "The field's default, as defaulter-gen reads it (ref() is not supported)."},
		markers.Definition{Name: "kubebuilder:default", Level: markers.FieldLevel, Owner: Owner, Apply: markers.MarkerDefault,
			Args: "=<value>", Help: "The field's default in controller-tools' value syntax (10Gi, \"x\", {a,b}, {a: 1})."},
		markers.Definition{Name: "k8s:defaulter-gen", Level: markers.PackageLevel, Owner: Owner,
			Args: "=<field>", Help: "Switches defaulter-gen on; apigen generates defaulting for every type anyway."},
		markers.Definition{Name: "k8s:defaulter-gen-input", Level: markers.PackageLevel, Owner: Owner,
			Unhonored: "apigen defaults the package's own types",
			Args:      "=<import path>", Help: "The package whose types defaulter-gen defaults; accepted with a warning."},
	)
}

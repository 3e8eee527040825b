// Package conversionmarkers registers the markers the conversion generator
// (generators/conversion) owns: code-generator's conversion-gen tags. It is a package of its
// own, beside the generator, so that the loader can read the registrations without importing
// the generator (whose tests load API packages).
package conversionmarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "conversion"

// Register registers the conversion generator's markers in reg.
func Register(reg *markers.Registry) {
	reg.MustRegister(
		markers.Definition{Name: "k8s:conversion-gen", Level: markers.PackageLevel | markers.TypeLevel, Owner: Owner,
			Apply: markers.String("conversionGen", func(m *model.Markers) *string { return &m.ConversionGen }),
			Args:  "=<import path>", Help: "On a version package, the group's hub package it converts to; =false on a type leaves its conversion to a hand-written Convert_ function."},
		markers.Definition{Name: "k8s:conversion-gen-external-types", Level: markers.PackageLevel, Owner: Owner,
			Unhonored: "apigen converts the version package's own types",
			Args:      "=<import path>", Help: "Where conversion-gen finds the external types; accepted with a warning."},
		markers.Definition{Name: "k8s:conversion-fn", Level: markers.FuncLevel, Owner: Owner,
			Args: "=copy-only|drop", Help: "On a hand-written conversion function, conversion-gen's hint; accepted."},
	)
}

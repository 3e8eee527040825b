// Package installmarkers registers the markers the install generator (generators/install)
// owns: apigen's own markers of how a kind is served. It is a package of its own, beside the
// generator, so that the loader can read the registrations without importing the generator
// (whose tests load API packages).
package installmarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "install"

// Register registers the install generator's markers in reg.
func Register(reg *markers.Registry) {
	reg.MustRegister(
		markers.Definition{Name: "apigen:nameValidation", Level: markers.TypeLevel, Owner: Owner,
			Apply: markers.String("nameValidation", func(m *model.Markers) *string { return &m.NameValidation }),
			Args:  "=DNS1123Subdomain|DNS1123Label|PathSegment", Help: "How the kind's object names are checked."},
		markers.Definition{Name: "apigen:storage", Level: markers.TypeLevel, Owner: Owner,
			Apply: markers.String("storage", func(m *model.Markers) *string { return &m.Storage }),
			Args:  "=etcd|interface|rest", Help: "Where the kind's objects are kept: etcd (the default), the user's storage.Interface (interface: the install package's new<Kind>Storage), or the user's REST verbs (rest: its new<Kind>REST); see the README's Storage section."},
	)
}

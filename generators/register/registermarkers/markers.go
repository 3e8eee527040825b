// Package registermarkers registers the markers the register generator
// (generators/register) owns: gengo's group and version names. It is a package of its own,
// beside the generator, so that the loader can read the registrations without importing the
// generator (whose tests load API packages).
package registermarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "register"

// Register registers the register generator's markers in reg.
func Register(reg *markers.Registry) {
	reg.MustRegister(
		markers.Definition{Name: "groupName", Level: markers.PackageLevel, Owner: Owner,
			Apply: markers.String("groupName", func(m *model.Markers) *string { return &m.GroupName }),
			Args:  "=<group>", Help: "The package is an API version of this group; packages without it contribute nothing."},
		markers.Definition{Name: "versionName", Level: markers.PackageLevel, Owner: Owner,
			Apply: markers.String("versionName", func(m *model.Markers) *string { return &m.VersionName }),
			Args:  "=<version>", Help: "The API version, when it is not the package's name."},
	)
}

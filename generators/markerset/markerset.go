// Package markerset assembles the marker registry of every generator: each generator
// registers the markers it owns from its own markers package (generators/crd/crdmarkers,
// generators/validation/validationmarkers, ...), as controller-tools' generators do in
// genall.Generator.RegisterMarkers, and the loader parses API packages with the result.
// `apigen markers` prints the registry's help.
package markerset

import (
	"sync"

	"github.com/apigen-dev/apigen/generators/clientset/clientsetmarkers"
	"github.com/apigen-dev/apigen/generators/compat/compatmarkers"
	"github.com/apigen-dev/apigen/generators/conversion/conversionmarkers"
	"github.com/apigen-dev/apigen/generators/crd/crdmarkers"
	"github.com/apigen-dev/apigen/generators/deepcopy/deepcopymarkers"
	"github.com/apigen-dev/apigen/generators/defaulting/defaultingmarkers"
	"github.com/apigen-dev/apigen/generators/install/installmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/openapi/openapimarkers"
	"github.com/apigen-dev/apigen/generators/register/registermarkers"
	"github.com/apigen-dev/apigen/generators/validation/validationmarkers"
)

// Registrations are the register functions of the generators' markers packages, in the
// order apigen runs the generators, then the compatibility check's (`apigen verify --against`,
// which generates nothing), then the parser's own (markers.RegisterUnowned).
var Registrations = []func(*markers.Registry){
	registermarkers.Register,
	deepcopymarkers.Register,
	conversionmarkers.Register,
	defaultingmarkers.Register,
	validationmarkers.Register,
	openapimarkers.Register,
	crdmarkers.Register,
	installmarkers.Register,
	clientsetmarkers.Register,
	compatmarkers.Register,
	markers.RegisterUnowned,
}

// Registry returns the registry of every generator's markers, built once; callers must not
// register more in it. It panics when two generators register one marker (each has one
// owner) or a definition lacks its help, owner or level: a programming error the tests catch.
var Registry = sync.OnceValue(func() *markers.Registry {
	reg := markers.NewRegistry()
	for _, register := range Registrations {
		register(reg)
	}
	return reg
})

package validation

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/validation/validationmarkers"
)

// RegisterMarkers registers the markers the validation generator owns (package validationmarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { validationmarkers.Register(reg) }

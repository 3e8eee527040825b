package conversion

import (
	"github.com/apigen-dev/apigen/generators/conversion/conversionmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
)

// RegisterMarkers registers the markers the conversion generator owns (package conversionmarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { conversionmarkers.Register(reg) }

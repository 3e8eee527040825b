package defaulting

import (
	"github.com/apigen-dev/apigen/generators/defaulting/defaultingmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
)

// RegisterMarkers registers the markers the defaulting generator owns (package defaultingmarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { defaultingmarkers.Register(reg) }

package deepcopy

import (
	"github.com/apigen-dev/apigen/generators/deepcopy/deepcopymarkers"
	"github.com/apigen-dev/apigen/generators/markers"
)

// RegisterMarkers registers the markers the deepcopy generator owns (package deepcopymarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { deepcopymarkers.Register(reg) }

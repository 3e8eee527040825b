package install

import (
	"github.com/apigen-dev/apigen/generators/install/installmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
)

// RegisterMarkers registers the markers the install generator owns (package installmarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { installmarkers.Register(reg) }

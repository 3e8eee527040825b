package clientset

import (
	"github.com/apigen-dev/apigen/generators/clientset/clientsetmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
)

// RegisterMarkers registers the markers the clientset generator owns (package clientsetmarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { clientsetmarkers.Register(reg) }

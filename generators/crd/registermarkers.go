package crd

import (
	"github.com/apigen-dev/apigen/generators/crd/crdmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
)

// RegisterMarkers registers the markers the crd generator owns (package crdmarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { crdmarkers.Register(reg) }

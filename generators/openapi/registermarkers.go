package openapi

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/openapi/openapimarkers"
)

// RegisterMarkers registers the markers the openapi generator owns (package openapimarkers), as
// controller-tools' genall.Generator.RegisterMarkers does; generators/markerset assembles
// the registrations of every generator.
func (generator) RegisterMarkers(reg *markers.Registry) { openapimarkers.Register(reg) }

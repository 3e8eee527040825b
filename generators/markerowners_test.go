package generators_test

import (
	"testing"

	"github.com/apigen-dev/apigen/generators"
	"github.com/apigen-dev/apigen/generators/compat/compatmarkers"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/markerset"
)

// markerOwner is a generator that registers the markers it owns, as controller-tools'
// genall.Generator.RegisterMarkers.
type markerOwner interface {
	Name() string
	RegisterMarkers(reg *markers.Registry)
}

// TestMarkerOwnersAreGenerators checks that the registry the loader parses with
// (markerset.Registry) is exactly what the generators of generators.All register through
// their RegisterMarkers, plus the compatibility check's (compatmarkers, a check rather than
// a generator) and the parser's own (markers.RegisterUnowned), and that each
// marker's owner is the generator registering it.
func TestMarkerOwnersAreGenerators(t *testing.T) {
	t.Parallel()
	want := markers.NewRegistry()
	owners := 0
	for _, g := range generators.All() {
		o, ok := g.(markerOwner)
		if !ok {
			continue
		}
		owners++
		reg := markers.NewRegistry()
		o.RegisterMarkers(reg)
		for _, d := range reg.Definitions() {
			if d.Owner != g.Name() {
				t.Errorf("generator %s registers +%s with owner %q", g.Name(), d.Name, d.Owner)
			}
		}
		o.RegisterMarkers(want)
	}
	compatmarkers.Register(want)
	markers.RegisterUnowned(want)
	if owners != len(markerset.Registrations)-2 {
		t.Errorf("%d generators register markers, markerset.Registrations has %d (and the compatibility check's and the parser's own)", owners, len(markerset.Registrations)-2)
	}
	got := map[string]string{}
	for _, d := range markerset.Registry().Definitions() {
		got[d.Name] = d.Owner
	}
	for _, d := range want.Definitions() {
		if got[d.Name] != d.Owner {
			t.Errorf("+%s: the generators register it for %s, markerset for %q", d.Name, d.Owner, got[d.Name])
		}
		delete(got, d.Name)
	}
	for name, owner := range got {
		t.Errorf("+%s: markerset registers it for %s, no generator of generators.All does", name, owner)
	}
}

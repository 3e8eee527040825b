package conversion

import (
	"fmt"
	"sort"

	"github.com/apigen-dev/apigen/generators/model"
)

// versionFiles returns the conversion files of g, a group of several versions without an
// internal package (model.Group.HubIsVersion): for every kind and every version that has it
// other than the kind's hub version (model.Group.HubOf), the conversions between the two
// versions' root types of the kind, their list types, and every struct type the fields of
// those reach as peers (same-named types of the two packages: Gateway API's v1beta1
// `type HTTPRoute v1.HTTPRoute` with v1's HTTPRoute, and the two HTTPRouteLists). Types the
// two versions share (v1beta1's `type HTTPRouteSpec = v1.HTTPRouteSpec`) are assigned as
// they are. A spoke's root type with controller-runtime's ConvertTo and ConvertFrom
// (model.Type.Convertible) whose hub has Hub is one convertible pair, its fields not walked;
// without Hub on the hub it is a diagnostic. The files are sorted by package path, their peer
// sets by the other package's.
func versionFiles(g *model.Group) ([]*file, model.Diagnostics) {
	files := map[*model.Package]*file{}
	var diags model.Diagnostics
	for _, name := range g.KindNames() {
		hub := g.HubOf(name)
		hk := hub.Kind(name)
		for _, v := range g.Versions {
			k := v.Kind(name)
			if v == hub || k == nil {
				continue
			}
			home, other := homeOf(g, v.Package, hub.Package)
			f := files[home]
			if f == nil {
				f = &file{home: home}
				files[home] = f
			}
			set := f.set(other)
			switch {
			case k.Type.Convertible && hk.Type.HasMethod("Hub"):
				set.add(convertiblePair(k.Type, hk.Type, v.Package == home))
			case k.Type.Convertible:
				diags = append(diags, model.Diagnostic{Pos: k.Type.Pos, Message: fmt.Sprintf(
					"%s.%s has ConvertTo and ConvertFrom (controller-runtime's conversion.Convertible) but its hub, %s.%s, "+
						"has no Hub method: write func (*%s) Hub() {} in package %s, or remove ConvertTo and ConvertFrom "+
						"to convert field by field", v.Package.Name, name, hub.Package.Name, name, name, hub.Package.Name)})
				continue
			default:
				set.walk(k.Type, hk.Type, v.Package == home)
			}
			if k.List != nil && hk.List != nil {
				set.walk(k.List, hk.List, v.Package == home)
			}
		}
	}
	out := make([]*file, 0, len(files))
	for _, f := range files {
		sort.Slice(f.peers, func(i, j int) bool { return f.peers[i].other.Path < f.peers[j].other.Path })
		for _, set := range f.peers {
			sort.Slice(set.pairs, func(i, j int) bool { return set.pairs[i].version.Name.Name < set.pairs[j].version.Name.Name })
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].home.Path < out[j].home.Path })
	return out, diags
}

// homeOf returns which of the version packages a and b of g the conversions between them go
// in, and the other one: the package whose hand-written files import the other, directly or
// through other packages of the group (a generated file importing back would close an import
// cycle: Gateway API's v1beta1 imports v1, so their conversions go in v1beta1); else the less
// preferred version of the two, as conversion-gen's conversions live in the older versions.
func homeOf(g *model.Group, a, b *model.Package) (home, other *model.Package) {
	switch {
	case reaches(g, a, b):
		return a, b
	case reaches(g, b, a):
		return b, a
	}
	for _, v := range g.Versions {
		switch v.Package {
		case a:
			return b, a
		case b:
			return a, b
		}
	}
	return a, b
}

// reaches reports whether package from imports package to, directly or through other
// version packages of g.
func reaches(g *model.Group, from, to *model.Package) bool {
	seen := map[*model.Package]bool{from: true}
	queue := []*model.Package{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p.Imported(to.Path) {
			return true
		}
		for _, v := range g.Versions {
			if !seen[v.Package] && p.Imported(v.Package.Path) {
				seen[v.Package] = true
				queue = append(queue, v.Package)
			}
		}
	}
	return false
}

// set returns f's peer set with package other, adding it when new.
func (f *file) set(other *model.Package) *peerSet {
	for _, s := range f.peers {
		if s.other == other {
			return s
		}
	}
	s := &peerSet{other: other, home: f.home.Path}
	f.peers = append(f.peers, s)
	return s
}

// walk adds the pair of struct types a and b (a of the file's package when aHome, else of
// the other) unless it has it, then the pairs their same-named fields reach.
func (s *peerSet) walk(a, b *model.Type, aHome bool) {
	if a.Kind != model.Struct || b.Kind != model.Struct {
		return // peer non-struct types are cast, with no function
	}
	p := pair{version: a, hub: b}
	if !aHome {
		p = pair{version: b, hub: a}
	}
	if !s.add(p) {
		return
	}
	for _, f := range a.Fields {
		if peer := b.Field(f.Name); peer != nil {
			s.walkRef(f.Type, peer.Type, aHome)
		}
	}
}

// convertiblePair is the pair of a spoke's Convertible root type and its hub's (spoke of the
// file's package when spokeHome, else of the other).
func convertiblePair(spoke, hub *model.Type, spokeHome bool) pair {
	if spokeHome {
		return pair{version: spoke, hub: hub, spoke: spoke}
	}
	return pair{version: hub, hub: spoke, spoke: spoke}
}

// add adds p unless the set has a pair of the same two types, and reports whether it did.
func (s *peerSet) add(p pair) bool {
	for _, have := range s.pairs {
		if have.version == p.version && have.hub == p.hub {
			return false
		}
	}
	s.pairs = append(s.pairs, p)
	return true
}

// walkRef walks the struct types two field types reach as peers of the set's two packages
// (pointers, slices, arrays and map values followed).
func (s *peerSet) walkRef(a, b *model.TypeRef, aHome bool) {
	aPkg, bPkg := s.home, s.other.Path
	if !aHome {
		aPkg, bPkg = bPkg, aPkg
	}
	switch {
	case a.Kind != b.Kind:
	case a.Kind == model.Named:
		if a.Named.Local && b.Named.Local && a.Named.Name.Name == b.Named.Name.Name &&
			a.Named.Name.Package == aPkg && b.Named.Name.Package == bPkg {
			s.walk(a.Named, b.Named, aHome)
		}
	case a.Kind == model.Pointer || a.Kind == model.Slice || a.Kind == model.Array || a.Kind == model.Map:
		s.walkRef(a.Elem, b.Elem, aHome)
	}
}

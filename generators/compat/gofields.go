package compat

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// omission reports every field present at both that turned from pointer to value or back:
// the schema is the same, but encoding/json omits or sends the unset value differently
// (a *int32 omits nil and sends 0, an int32 with omitempty omits 0), so clients and
// defaulting see another object.
func (kc *kindComparer) omission() {
	paths := make([]string, 0, len(kc.newIdx))
	for p := range kc.newIdx {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		n, o := kc.newIdx[p], kc.oldIdx[p]
		if n.field == nil || o.field == nil {
			continue
		}
		op, np := o.field.Type.Kind == model.Pointer, n.field.Type.Kind == model.Pointer
		if op == np {
			continue
		}
		kc.change("omission-changed", Breaking, p, false, "%s changes from %s to %s: an unset value is now %s, so clients and defaulting see another object; a field's omission cannot change in a served version",
			p, fieldText(o.field), fieldText(n.field), omitted(n.field))
	}
}

// fieldText is the field's Go type with its json options, "*int32,omitempty".
func fieldText(f *model.Field) string {
	s := shortRef(f.Type)
	if f.OmitEmpty {
		s += ",omitempty"
	}
	if f.OmitZero {
		s += ",omitzero"
	}
	return s
}

// omitted says what encoding/json writes for f's unset value.
func omitted(f *model.Field) string {
	switch {
	case f.Type.Kind == model.Pointer && (f.OmitEmpty || f.OmitZero):
		return "omitted (nil) and its zero value sent"
	case f.Type.Kind == model.Pointer:
		return "sent as null"
	case f.OmitEmpty || f.OmitZero:
		return "indistinguishable from its zero value, which is omitted"
	}
	return "sent as its zero value"
}

// shortRef renders r with package names instead of import paths.
func shortRef(r *model.TypeRef) string {
	switch r.Kind {
	case model.Named:
		path := r.Named.Name.Package
		return path[strings.LastIndex(path, "/")+1:] + "." + r.Named.Name.Name
	case model.Pointer:
		return "*" + shortRef(r.Elem)
	case model.Slice:
		return "[]" + shortRef(r.Elem)
	case model.Map:
		return "map[" + shortRef(r.Key) + "]" + shortRef(r.Elem)
	}
	return r.String()
}

// hubOf returns the type the server holds kind in, for group g, and the version it belongs
// to (nil for a group's internal package).
func hubOf(g *model.Group, kind string) (*model.Type, *model.Version) {
	if !g.HubIsVersion {
		if g.Hub == nil {
			return nil, nil
		}
		return g.Hub.Type(kind), nil
	}
	v := g.HubOf(kind)
	if v == nil {
		return nil, nil
	}
	return v.Kind(kind).Type, v
}

// lossyPaths returns, for every served version of g other than the hub's, the paths of
// kind's hub type that version's type lacks (the topmost of each missing subtree), with the
// hub's index.
func lossyPaths(g *model.Group, kind string) (map[string][]string, map[string]node) {
	hub, hubVersion := hubOf(g, kind)
	if hub == nil {
		return nil, nil
	}
	hubIdx := index(hub)
	out := map[string][]string{}
	for _, v := range g.Versions {
		k := v.Kind(kind)
		if v == hubVersion || k == nil || k.Unserved {
			continue
		}
		vIdx := index(k.Type)
		var missing []string
		for p, n := range hubIdx {
			if n.field == nil {
				continue
			}
			if _, ok := vIdx[p]; ok {
				continue
			}
			if _, ok := vIdx[parent(p)]; !ok && parent(p) != "" {
				continue // below a missing ancestor, reported there
			}
			missing = append(missing, p)
		}
		sort.Strings(missing)
		out[v.Name] = missing
	}
	return out, hubIdx
}

// lossy reports hub fields that a served version cannot carry now and could at the ref (or
// that are new): a conversion through that version loses them.
func (c *comparer) lossy(og, ng *model.Group) {
	kinds := map[string]bool{}
	for _, v := range ng.Versions {
		for _, k := range v.Kinds {
			kinds[k.Name] = true
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, kind := range names {
		now, hubIdx := lossyPaths(ng, kind)
		before, _ := lossyPaths(og, kind)
		hubType, hubVersion := hubOf(ng, kind)
		hubName := "the internal version"
		if hubVersion != nil {
			hubName = hubVersion.Name
		}
		for _, v := range ng.Versions {
			for _, p := range now[v.Name] {
				if contains(before[v.Name], p) {
					continue
				}
				n := hubIdx[p]
				allow := append([]string(nil), n.field.Markers.AllowBreaking...)
				if n.owner != nil {
					allow = append(allow, n.owner.Markers.AllowBreaking...)
				}
				allow = append(allow, hubType.Markers.AllowBreaking...)
				allow = append(allow, v.Package.Markers.AllowBreaking...)
				c.add(Change{Name: "lossy-conversion", Severity: Breaking, Group: ng.Name, Version: v.Name, Kind: kind, Path: p, Pos: n.field.Pos, allow: allow,
					Reason: fmt.Sprintf("%s field %s has no counterpart in %s/%s: an object converted through %s loses it; every served version must round-trip (add the field to %s, or keep it in an annotation)",
						hubName, p, ng.DisplayName(), v.Name, v.Name, v.Name)})
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

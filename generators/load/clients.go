package load

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// pluralExceptions are client-gen's default --plural-exceptions ("Endpoints:Endpoints").
var pluralExceptions = map[string]string{"Endpoints": "Endpoints"}

// clientResource returns the resource name client-gen's clients request for a kind: gengo's
// all-lowercase plural namer with client-gen's exceptions (DatabaseClass -> databaseclasses,
// Index -> indexes).
func clientResource(kind string) string {
	return namer.NewAllLowercasePluralNamer(pluralExceptions).Name(gengoType(kind))
}

// clientPluralName returns the plural Go name client-gen gives a kind (DatabaseClasses),
// gengo's public plural namer.
func clientPluralName(kind string) string {
	return namer.NewPublicPluralNamer(pluralExceptions).Name(gengoType(kind))
}

func gengoType(name string) *gengotypes.Type {
	return &gengotypes.Type{Name: gengotypes.Name{Name: name}}
}

// client resolves the +genclient tags of kind type t as client-gen's ParseClientGenTags and
// genStatus do; a marker client-gen would reject was already reported by the markers parser.
func (b *builder) client(t *model.Type) *model.Client {
	m := t.Markers
	c := &model.Client{
		NoVerbs:    m.NoVerbs,
		HasStatus:  t.Field("Status") != nil && !m.NoStatus,
		Limited:    m.NoVerbs || m.ReadOnly || len(m.OnlyVerbs) > 0 || len(m.SkipVerbs) > 0,
		Methods:    m.ClientMethods,
		PluralName: clientPluralName(t.Name.Name),
	}
	skip := m.SkipVerbs
	if m.ReadOnly || len(m.OnlyVerbs) > 0 {
		only := append(slices.Clone(m.OnlyVerbs), markers.ReadonlyVerbs...)
		if !m.ReadOnly {
			only = m.OnlyVerbs
		}
		for _, v := range markers.ClientVerbs {
			if slices.Contains(m.SkipVerbs, v) && slices.Contains(only, v) {
				b.errorf(t.Pos, "verb %q of %s is used both in +genclient:skipVerbs and +genclient:onlyVerbs", v, t.Name.Name)
			}
			if !slices.Contains(only, v) {
				skip = append(skip, v)
			}
		}
	}
	for _, v := range markers.ClientVerbs {
		if !slices.Contains(skip, v) {
			c.Verbs = append(c.Verbs, v)
		}
	}
	for _, meth := range c.Methods {
		b.checkMethodType(t, meth, "input", meth.Input)
		b.checkMethodType(t, meth, "result", meth.Result)
	}
	return c
}

// clientsForAll gives a client to every served root kind without one in the groups whose
// generated clients share a clientset (model.Group.ClientPath) with a package marked
// +apigen:clients=all. The client has every verb the kind is served with and UpdateStatus
// only where the kind serves /status; the kind is served as before (a +genclient would change
// its plural to client-gen's and turn a Status field into a subresource; the switch does not).
func (b *builder) clientsForAll(groups []*model.Group) {
	all := map[string]bool{}
	for _, g := range groups {
		if g.Hub.Markers.Clients == "all" {
			all[g.ClientPath] = true
		}
		for _, v := range g.Versions {
			if v.Package.Markers.Clients == "all" {
				all[g.ClientPath] = true
			}
		}
	}
	for _, g := range groups {
		if !all[g.ClientPath] {
			continue
		}
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				if k.Client != nil || k.Unserved {
					continue
				}
				// The kind's +genclient:... tags, if any, were reported as doing nothing
				// without +genclient; they shape neither the server nor this client.
				c := &model.Client{Verbs: slices.Clone(markers.ClientVerbs), HasStatus: k.StatusSubresource,
					PluralName: clientPluralName(k.Name)}
				if k.CreateOnly {
					c.Verbs, c.Limited = []string{"create"}, true
				}
				k.Client = c
			}
		}
	}
}

// checkMethodType reports a +genclient:method input or result type that names no type of the
// kind's package (a type of another package is written with its import path and is not checked).
func (b *builder) checkMethodType(t *model.Type, meth model.ClientMethod, arg, name string) {
	if name == "" || strings.Contains(name, ".") {
		return
	}
	if b.types[t.Name.Package+"."+name] == nil {
		b.errorf(meth.Pos, "+genclient:method=%s: %s type %s is not declared in package %s; write its import path, as %s=k8s.io/api/autoscaling/v1.Scale",
			meth.Name, arg, name, t.Name.Package, arg)
	}
}

// clientTagsWithoutGenclient warns about +genclient:... tags on a kind without +genclient:
// client-gen reads them only with +genclient, so they would do nothing.
func (b *builder) clientTagsWithoutGenclient(t *model.Type) {
	m := t.Markers
	tags := map[string]bool{"noStatus": m.NoStatus, "noVerbs": m.NoVerbs, "readonly": m.ReadOnly,
		"onlyVerbs": len(m.OnlyVerbs) > 0, "skipVerbs": len(m.SkipVerbs) > 0, "method": len(m.ClientMethods) > 0}
	for _, name := range []string{"method", "noStatus", "noVerbs", "onlyVerbs", "readonly", "skipVerbs"} {
		if tags[name] {
			b.warnf(t.Pos, "+genclient:%s on %s does nothing without +genclient: add +genclient to generate its client and limit its verbs", name, t.Name.Name)
		}
	}
}

// apiRoot returns the import path and directory of the root of the API tree holding the hub
// package hub: the parent of the last "apis" or "api" directory above it (example-api for
// example-api/apis/db), else the hub's module root. Generated clients go to
// <root>/pkg/generated and CustomResourceDefinitions to <root>/config/crd.
func apiRoot(hub *model.Package, modulePath, moduleDir string) (pkgPath, dir string) {
	segs := strings.Split(hub.Path, "/")
	for i := len(segs) - 1; i > 0; i-- {
		if segs[i] != "apis" && segs[i] != "api" {
			continue
		}
		up := len(segs) - i // directories from the hub up to the parent of apis
		d := hub.Dir
		for range up {
			d = filepath.Dir(d)
		}
		return path.Join(segs[:i]...), d
	}
	return modulePath, moduleDir
}

// clientGroupNames returns the package name and Go name client-gen gives group: the first
// label of the group name ("db" and "Db" for db.example.com; "core" for the legacy group),
// goName overriding the Go name when set (+groupGoName).
func clientGroupNames(group, goName string) (pkgName, name string) {
	first := group
	if first == "" {
		first = "core"
	}
	first, _, _ = strings.Cut(first, ".")
	if goName == "" {
		goName = namer.IC(first)
	}
	return strings.ToLower(first), goName
}

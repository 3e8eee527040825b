package load

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/version"

	"github.com/apigen-dev/apigen/generators/model"
)

// deprecations sets the DeprecationWarning of every kind marked +kubebuilder:deprecatedversion
// in g: the marker's warning, else apiextensions-apiserver's defaultDeprecationWarning
// ("<group>/<version> <Kind> is deprecated", with "; use <group>/<newer> <Kind>" naming the
// most preferred newer version that serves the kind and is not deprecated). A deprecated kind
// that is not served gets a warning: nobody can receive the header.
func (b *builder) deprecations(g *model.Group) {
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			m := k.Type.Markers
			if !m.DeprecatedVersion {
				continue
			}
			if k.Unserved {
				b.warnf(k.Pos, "+kubebuilder:deprecatedversion on %s does nothing: %s is not served in %s (+kubebuilder:unservedversion)", k.Name, k.Name, v.Name)
			}
			if m.DeprecationText != nil {
				k.DeprecationWarning = *m.DeprecationText
				continue
			}
			k.DeprecationWarning = defaultDeprecationWarning(g, v.Name, k.Name)
		}
	}
}

// defaultDeprecationWarning is apiextensions-apiserver's defaultDeprecationWarning for kind in
// the deprecated version deprecated of g.
func defaultDeprecationWarning(g *model.Group, deprecated, kind string) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", g.Name, deprecated, kind)
	var newer []string
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.Name == kind && !k.Unserved && !k.Type.Markers.DeprecatedVersion &&
				version.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
				newer = append(newer, v.Name)
			}
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", g.Name, newer[0], kind)
}

// versionMarkersOnNonKind warns about controller-tools' version markers on a type that is not
// a kind of a version (they describe a kind's version, as on a CRD version).
func (b *builder) versionMarkersOnNonKind(t *model.Type) {
	m := t.Markers
	for _, x := range []struct {
		set  bool
		name string
	}{{m.SkipVersion, "skipversion"}, {m.UnservedVersion, "unservedversion"}, {m.DeprecatedVersion, "deprecatedversion"}} {
		if x.set {
			b.warnf(t.Pos, "+kubebuilder:%s on %s does nothing: it describes a kind's version, and %s is not a kind (a root type with ObjectMeta and a %sList)",
				x.name, t.Name.Name, t.Name.Name, t.Name.Name)
		}
	}
}

// checkPlurals reports a kind served at different resource names in two versions of g (a
// +genclient kind at client-gen's plural and the same kind without +genclient at
// controller-gen's, say): one resource is served at one path, and clients and server must
// agree on it.
func (b *builder) checkPlurals(g *model.Group) {
	first := map[string]*model.Kind{}
	firstVersion := map[string]string{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			prev, ok := first[k.Name]
			if !ok {
				first[k.Name], firstVersion[k.Name] = k, v.Name
				continue
			}
			if prev.Plural != k.Plural {
				b.errorf(k.Pos, "kind %s is served as %s in %s but as %s in %s (a +genclient kind takes client-gen's plural, "+
					"a kubebuilder kind controller-gen's): give both the same +genclient, or +kubebuilder:resource:path=<plural>",
					k.Name, prev.Plural, firstVersion[k.Name], k.Plural, v.Name)
			}
		}
	}
}

// checkHubs reports, in a group without an internal package, a kind whose root type has a
// Hub method (kubebuilder's conversion.Hub) in two versions: one version is the kind's hub.
func (b *builder) checkHubs(g *model.Group) {
	if !g.HubIsVersion {
		return
	}
	first := map[string]*model.Version{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if !k.Type.HasMethod("Hub") {
				continue
			}
			if prev, ok := first[k.Name]; ok {
				b.errorf(k.Pos, "kind %s of group %s has a Hub method in %s and in %s: one version is a kind's hub", k.Name, g.Name, prev.Name, v.Name)
				continue
			}
			first[k.Name] = v
		}
	}
}

// checkHubReferences reports what in the version packages of g points at the hub but would
// not be honoured: a package-level +k8s:conversion-gen naming another package than the hub
// (an error: apigen converts every version to the group's hub, as conversion-gen converts to
// the package it names; in a group without an internal package it must name another version
// of the group), a type-level +k8s:conversion-gen=false without a hand-written Convert_
// function (a warning: apigen generates the conversion conversion-gen would leave out; only
// where the group has an internal package), and a Validate<Kind> or Validate<Kind>Update
// function in a version package that is not the kind's hub (a warning: the server validates
// hub objects and calls only the hub's hooks).
func (b *builder) checkHubReferences(g *model.Group, pkgs []*apiPackage) {
	for _, ap := range pkgs {
		if g.HubIsVersion {
			if len(g.Versions) > 1 {
				b.checkVersionReference(g, ap)
			}
			b.versionedHooks(g, ap.model)
			continue
		}
		if ap.model == g.Hub {
			continue
		}
		if ref := ap.model.Markers.ConversionGen; ref != "" && ref != g.Hub.Path {
			b.errorf(ap.convPos, "+k8s:conversion-gen=%s in package %s must name the hub package of group %s, %s", ref, ap.model.Name, g.Name, g.Hub.Path)
		}
		for _, t := range ap.model.Types {
			if t.Markers.ConversionGen == "false" && !hasHandConversion(ap.model, g.Hub, t.Name.Name) {
				b.warnf(t.Pos, "+k8s:conversion-gen=false on %s: apigen still generates its conversion (conversion-gen would not); "+
					"write Convert_%s_%s_To_%s_%s to replace it", t.Name.Name, ap.model.Name, t.Name.Name, g.Hub.Name, t.Name.Name)
			}
		}
		b.versionedHooks(g, ap.model)
	}
}

// checkVersionReference reports a package-level +k8s:conversion-gen in a version package of a
// group without an internal package that names no other version package of the group.
func (b *builder) checkVersionReference(g *model.Group, ap *apiPackage) {
	ref := ap.model.Markers.ConversionGen
	if ref == "" {
		return
	}
	for _, v := range g.Versions {
		if v.Package.Path == ref && v.Package != ap.model {
			return
		}
	}
	b.errorf(ap.convPos, "+k8s:conversion-gen=%s in package %s names no other version package of group %s, which has no internal (hub) package: "+
		"apigen converts each kind between its versions", ref, ap.model.Name, g.Name)
}

// hasHandConversion reports whether version package v declares a hand-written conversion of
// type name to or from the hub.
func hasHandConversion(v, hub *model.Package, name string) bool {
	return v.HasFunc("Convert_"+v.Name+"_"+name+"_To_"+hub.Name+"_"+name) ||
		v.HasFunc("Convert_"+hub.Name+"_"+name+"_To_"+v.Name+"_"+name)
}

// versionedHooks warns about validation hooks of the group's kinds declared in version
// package v when v does not hold the kind (model.Group.ObjectPackage).
func (b *builder) versionedHooks(g *model.Group, v *model.Package) {
	kinds := map[string]bool{}
	for _, ver := range g.Versions {
		for _, k := range ver.Kinds {
			kinds[k.Name] = true
		}
	}
	for name, pos := range v.Funcs {
		kind, ok := strings.CutPrefix(name, "Validate")
		kind = strings.TrimSuffix(kind, "Update")
		if !ok || !kinds[kind] {
			continue
		}
		switch hub := g.ObjectPackage(kind); {
		case hub == v:
		case g.HubIsVersion:
			b.warnf(pos, "%s in package %s is not called: validation hooks of %s live in its hub version's package (%s)", name, v.Name, kind, hub.Path)
		default:
			b.warnf(pos, "%s in package %s is not called: validation hooks live in the hub package (%s)", name, v.Name, g.Hub.Path)
		}
	}
}

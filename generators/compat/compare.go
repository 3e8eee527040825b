package compat

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// Compare returns the changes from old, the API at the ref, to new, the API now, sorted by
// file and line: every group, served version and kind of either (added, removed, no longer
// served, storage version switched), the effective validation of every served kind in every
// version that serves it at both (its CustomResourceDefinition schema, as apiextensions
// validates it), omission changes of the Go fields, and hub fields newly lost by the
// conversion to a served version. Positions of removed declarations (AtRef) are in old's
// tree. Changes are not yet allowed (see Allow).
func Compare(old, new *model.API) []Change {
	c := &comparer{oldSchemas: schemas(old), newSchemas: schemas(new)}
	newGroups := map[string]*model.Group{}
	for _, g := range new.Groups {
		newGroups[g.Name] = g
	}
	oldGroups := map[string]*model.Group{}
	for _, og := range old.Groups {
		oldGroups[og.Name] = og
		c.group(og, newGroups[og.Name])
	}
	for _, ng := range new.Groups {
		if oldGroups[ng.Name] == nil {
			for _, v := range ng.Versions {
				c.add(Change{Name: "version-added", Severity: Additive, Group: ng.Name, Version: v.Name, Pos: versionPos(v),
					Reason: fmt.Sprintf("new version %s/%s", ng.DisplayName(), v.Name)})
			}
		}
	}
	return sortChanges(c.out)
}

// comparer collects the changes of one Compare.
type comparer struct {
	oldSchemas, newSchemas map[schemaKey]*schema
	out                    []Change
}

func (c *comparer) add(ch Change) { c.out = append(c.out, ch) }

// group compares group og at the ref with ng now (nil when the group is gone).
func (c *comparer) group(og, ng *model.Group) {
	var groupAllow []string
	if ng != nil {
		for _, p := range packagesOf(ng) {
			groupAllow = append(groupAllow, p.Markers.AllowBreaking...)
		}
	}
	for _, ov := range og.Versions {
		var nv *model.Version
		if ng != nil {
			nv = versionNamed(ng, ov.Name)
		}
		if nv == nil {
			if !servesAny(ov) {
				continue
			}
			c.add(Change{Name: "version-removed", Severity: Breaking, Group: og.Name, Version: ov.Name, Pos: versionPos(ov), AtRef: true,
				Reason: fmt.Sprintf("version %s/%s is no longer served: every client of it fails; a served version is removed only after its deprecation period%s",
					og.DisplayName(), ov.Name, storedIn(og, ov, "")),
				allow: groupAllow})
			continue
		}
		c.version(og, ng, ov, nv)
	}
	if ng == nil {
		return
	}
	for _, nv := range ng.Versions {
		if versionNamed(og, nv.Name) == nil {
			c.add(Change{Name: "version-added", Severity: Additive, Group: ng.Name, Version: nv.Name, Pos: versionPos(nv),
				Reason: fmt.Sprintf("new version %s/%s", ng.DisplayName(), nv.Name)})
		}
	}
	c.storage(og, ng)
	c.lossy(og, ng)
}

// version compares version ov of group og with nv of ng, kind by kind.
func (c *comparer) version(og, ng *model.Group, ov, nv *model.Version) {
	pkgAllow := nv.Package.Markers.AllowBreaking
	for _, ok := range ov.Kinds {
		nk := nv.Kind(ok.Name)
		switch {
		case nk == nil && !ok.Unserved:
			c.add(Change{Name: "kind-removed", Severity: Breaking, Group: og.Name, Version: ov.Name, Kind: ok.Name, Pos: ok.Pos, AtRef: true,
				Reason: fmt.Sprintf("kind %s is no longer served in %s/%s: every client of it fails; a served kind is removed only with its version, after its deprecation period%s",
					ok.Name, og.DisplayName(), ov.Name, storedIn(og, ov, ok.Name)),
				allow: pkgAllow})
		case nk == nil:
		case nk.Unserved && !ok.Unserved:
			c.add(Change{Name: "version-unserved", Severity: Breaking, Group: ng.Name, Version: nv.Name, Kind: nk.Name, Pos: nk.Pos,
				Reason: fmt.Sprintf("%s/%s %s stops being served (+kubebuilder:unservedversion): every client of it fails%s",
					ng.DisplayName(), nv.Name, nk.Name, storedIn(og, ov, ok.Name)),
				allow: append(slicesOf(nk.Type.Markers.AllowBreaking), pkgAllow...)})
		case nk.Unserved:
		default:
			c.kind(og, ng, ov, nv, ok, nk)
		}
	}
	for _, nk := range nv.Kinds {
		if ov.Kind(nk.Name) == nil && !nk.Unserved {
			c.add(Change{Name: "kind-added", Severity: Additive, Group: ng.Name, Version: nv.Name, Kind: nk.Name, Pos: nk.Pos,
				Reason: fmt.Sprintf("new kind %s in %s/%s", nk.Name, ng.DisplayName(), nv.Name)})
		}
	}
}

// storedIn is "; it is the storage version of <kind>, ..." when ov of og at the ref stores
// kind (every kind when kind is ""), else "".
func storedIn(og *model.Group, ov *model.Version, kind string) string {
	var stored []string
	for _, k := range ov.Kinds {
		if (kind == "" || k.Name == kind) && og.StorageVersionOf(k.Name) == ov {
			stored = append(stored, k.Name)
		}
	}
	if len(stored) == 0 {
		return ""
	}
	return fmt.Sprintf("; it is the storage version of %s, whose stored objects could no longer be read: switch the storage version and migrate first",
		strings.Join(stored, ", "))
}

// storage reports every kind whose storage version differs between og and ng.
func (c *comparer) storage(og, ng *model.Group) {
	for _, nv := range ng.Versions {
		for _, nk := range nv.Kinds {
			if ng.StorageVersionOf(nk.Name) != nv {
				continue
			}
			was := og.StorageVersionOf(nk.Name)
			if was == nil || was.Name == nv.Name {
				continue
			}
			c.add(Change{Name: "storage-version-changed", Severity: NeedsMigration, Group: ng.Name, Version: nv.Name, Kind: nk.Name, Pos: nk.Pos,
				Reason: fmt.Sprintf("%s objects are now stored as %s instead of %s: those stored before stay %s until rewritten; deploy, then create a StorageVersionMigration (storagemigration.k8s.io/v1) with spec.resource {group: %s, resource: %s}",
					nk.Name, nv.Name, was.Name, was.Name, ng.Name, nk.Plural)})
		}
	}
}

// kind compares kind ok of version ov with nk of nv, both served.
func (c *comparer) kind(og, ng *model.Group, ov, nv *model.Version, ok, nk *model.Kind) {
	kc := &kindComparer{c: c, group: ng.Name, version: nv.Name, kind: nk.Name,
		oldIdx: index(ok.Type), newIdx: index(nk.Type), kindNew: nk, pkgNew: nv.Package}
	base := Change{Group: ng.Name, Version: nv.Name, Kind: nk.Name, Pos: nk.Pos,
		allow: append(slicesOf(nk.Type.Markers.AllowBreaking), nv.Package.Markers.AllowBreaking...)}
	if ok.Namespaced != nk.Namespaced {
		ch := base
		ch.Name, ch.Severity = "scope-changed", Breaking
		ch.Reason = fmt.Sprintf("%s changes from %s to %s scope: every URL of it and every stored key changes", nk.Name, scope(ok), scope(nk))
		c.add(ch)
	}
	osch, nsch := c.oldSchemas[schemaKey{og.Name, ov.Name, ok.Name}], c.newSchemas[schemaKey{ng.Name, nv.Name, nk.Name}]
	if osch != nil && nsch != nil {
		kc.walk("", osch.props, nsch.props)
	}
	kc.omission()
}

func scope(k *model.Kind) string {
	if k.Namespaced {
		return "namespace"
	}
	return "cluster"
}

// versionNamed returns g's version called name, or nil.
func versionNamed(g *model.Group, name string) *model.Version {
	for _, v := range g.Versions {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// servesAny reports whether some kind of v is served.
func servesAny(v *model.Version) bool {
	for _, k := range v.Kinds {
		if !k.Unserved {
			return true
		}
	}
	return len(v.Kinds) == 0
}

// packagesOf returns g's hub (when it is not a version) and version packages.
func packagesOf(g *model.Group) []*model.Package {
	var out []*model.Package
	if !g.HubIsVersion && g.Hub != nil {
		out = append(out, g.Hub)
	}
	for _, v := range g.Versions {
		out = append(out, v.Package)
	}
	return out
}

func slicesOf(s []string) []string { return append([]string(nil), s...) }

// versionPos is where version v is declared: the package clause of its doc.go (or
// groupversion_info.go, which kubebuilder writes), else its first kind.
func versionPos(v *model.Version) model.Position {
	for _, name := range []string{"doc.go", "groupversion_info.go"} {
		path := filepath.Join(v.Package.Dir, name)
		if line := packageLine(path); line > 0 {
			return model.Position{File: path, Line: line}
		}
	}
	if len(v.Kinds) > 0 {
		return v.Kinds[0].Pos
	}
	return model.Position{File: v.Package.Dir}
}

// packageLine returns the line of path's package clause, 0 when there is none.
func packageLine(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "package ") {
			return n
		}
	}
	return 0
}

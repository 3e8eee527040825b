// Package clientlayout is where generated clients go and what they are called, shared by the
// clientset, listers, informers and applyconfigurations generators: the trees of generated
// clients (one per apis root, as client-gen's --output-pkg), their package paths, which kinds
// get clients, and client-gen's derived names.
//
// Layout of one tree, rooted at model.Group.ClientPath (<root>/pkg/generated), as
// sample-apiserver's hack/update-codegen.sh lays out code-generator's output:
//
//	clientset/versioned[/fake|/scheme|/typed/<group>/<version>[/fake]]
//	listers/<group>/<version>
//	informers/externalversions[/internalinterfaces|/<group>[/<version>]]
//	applyconfiguration[/internal|/<group>/<version>]
//
// <group> is model.Group.ClientPackageName ("db") and <version> the version name.
package clientlayout

import (
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// Tree is one tree of generated clients: every group with clients whose ClientPath is Path.
type Tree struct {
	// Path is the tree's import path and Dir its directory (model.Group.ClientPath, ClientDir).
	Path, Dir string
	// GroupVersions are the group versions with at least one client kind, sorted by group name
	// and then by version priority (most preferred first).
	GroupVersions []GroupVersion
}

// GroupVersion is one group version of a tree and its client kinds.
type GroupVersion struct {
	Group   *model.Group
	Version *model.Version
	// Kinds are the served kinds with a client (model.Kind.Client), sorted by name.
	Kinds []*model.Kind
}

// APIVersion is the group version's apiVersion: "<group>/<version>", or "<version>" for
// Kubernetes' legacy core group, whose name is empty ("v1").
func (gv GroupVersion) APIVersion() string {
	if gv.Group.Name == "" {
		return gv.Version.Name
	}
	return gv.Group.Name + "/" + gv.Version.Name
}

// DisplayName names the group version in generated doc comments: "<group>/<version>", with
// "core" for the legacy core group ("core/v1").
func (gv GroupVersion) DisplayName() string {
	return gv.Group.DisplayName() + "/" + gv.Version.Name
}

// Trees returns the trees of api's groups that have client kinds, sorted by path.
func Trees(api *model.API) []*Tree {
	byPath := map[string]*Tree{}
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			kinds := ClientKinds(v)
			if len(kinds) == 0 {
				continue
			}
			t := byPath[g.ClientPath]
			if t == nil {
				t = &Tree{Path: g.ClientPath, Dir: g.ClientDir}
				byPath[g.ClientPath] = t
			}
			t.GroupVersions = append(t.GroupVersions, GroupVersion{Group: g, Version: v, Kinds: kinds})
		}
	}
	trees := make([]*Tree, 0, len(byPath))
	for _, t := range byPath {
		trees = append(trees, t)
	}
	sort.Slice(trees, func(i, j int) bool { return trees[i].Path < trees[j].Path })
	return trees
}

// ClientKinds returns the kinds of v that get a client: marked +genclient and served (an
// unserved kind's client could only ever get 404).
func ClientKinds(v *model.Version) []*model.Kind {
	var out []*model.Kind
	for _, k := range v.Kinds {
		if k.Client != nil && !k.Unserved {
			out = append(out, k)
		}
	}
	return out
}

// Groups returns the tree's groups in order, each once, with its group versions.
func (t *Tree) Groups() [][]GroupVersion {
	var out [][]GroupVersion
	for _, gv := range t.GroupVersions {
		if n := len(out); n > 0 && out[n-1][0].Group == gv.Group {
			out[n-1] = append(out[n-1], gv)
			continue
		}
		out = append(out, []GroupVersion{gv})
	}
	return out
}

// Segment is the tree-relative directory of a group version: "<group>/<version>".
func (gv GroupVersion) Segment() string { return gv.Group.ClientPackageName + "/" + gv.Version.Name }

// GoName is the group version's Go name in client names: "DbV1".
func (gv GroupVersion) GoName() string { return gv.Group.ClientGoName + Public(gv.Version.Name) }

// Import paths and directories of a tree's packages.
func (t *Tree) ClientsetPath() string { return t.Path + "/clientset/versioned" }

// ClientsetDir is the directory of ClientsetPath.
func (t *Tree) ClientsetDir() string { return filepath.Join(t.Dir, "clientset", "versioned") }

// TypedPath is the import path of gv's typed client package.
func (t *Tree) TypedPath(gv GroupVersion) string { return t.ClientsetPath() + "/typed/" + gv.Segment() }

// TypedDir is the directory of TypedPath.
func (t *Tree) TypedDir(gv GroupVersion) string {
	return filepath.Join(t.ClientsetDir(), "typed", filepath.FromSlash(gv.Segment()))
}

// ListersPath is the import path of gv's listers package.
func (t *Tree) ListersPath(gv GroupVersion) string { return t.Path + "/listers/" + gv.Segment() }

// ListersDir is the directory of ListersPath.
func (t *Tree) ListersDir(gv GroupVersion) string {
	return filepath.Join(t.Dir, "listers", filepath.FromSlash(gv.Segment()))
}

// InformersPath is the import path of the shared informer factory package
// (informers/externalversions); sub names a package below it ("internalinterfaces", "db",
// "db/v1"), "" the factory's own.
func (t *Tree) InformersPath(sub string) string {
	return strings.TrimSuffix(path.Join(t.Path, "informers", "externalversions", sub), "/")
}

// InformersDir is the directory of InformersPath(sub).
func (t *Tree) InformersDir(sub string) string {
	return filepath.Join(t.Dir, "informers", "externalversions", filepath.FromSlash(sub))
}

// ApplyPath is the import path of the apply configurations package sub below
// applyconfiguration ("db/v1", "internal", "" for the utilities).
func (t *Tree) ApplyPath(sub string) string {
	return strings.TrimSuffix(path.Join(t.Path, "applyconfiguration", sub), "/")
}

// ApplyDir is the directory of ApplyPath(sub).
func (t *Tree) ApplyDir(sub string) string {
	return filepath.Join(t.Dir, "applyconfiguration", filepath.FromSlash(sub))
}

// Public returns s with its first letter upper-cased, as gengo's namer.IC ("v1" -> "V1").
func Public(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Private returns s with its first letter lower-cased, as gengo's namer.IL ("DatabaseClass"
// -> "databaseClass").
func Private(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// FileName is the file a kind's generated code goes to in a package: the lower-cased kind
// and ".go", as client-gen, lister-gen and informer-gen name them ("databaseclass.go").
func FileName(k *model.Kind) string { return strings.ToLower(k.Name) + ".go" }

// Import paths of client-go and apimachinery packages generated clients use.
const (
	RestPkg      = "k8s.io/client-go/rest"
	GentypePkg   = "k8s.io/client-go/gentype"
	TestingPkg   = "k8s.io/client-go/testing"
	DiscoveryPkg = "k8s.io/client-go/discovery"
	CachePkg     = "k8s.io/client-go/tools/cache"
	ListersPkg   = "k8s.io/client-go/listers"
	MetaV1Pkg    = "k8s.io/apimachinery/pkg/apis/meta/v1"
	ApplyMetaPkg = "k8s.io/client-go/applyconfigurations/meta/v1"
	RuntimePkg   = "k8s.io/apimachinery/pkg/runtime"
	SchemaPkg    = "k8s.io/apimachinery/pkg/runtime/schema"
	TypesPkg     = "k8s.io/apimachinery/pkg/types"
	WatchPkg     = "k8s.io/apimachinery/pkg/watch"
)

// ImportNames returns the fixed import names of generated client files of the tree, on top of
// emit.ImportNames: an API package is "<group><version>" (dbv1), its typed client
// "typed<group><version>", fake "fake<group><version>", listers "<group><version>listers",
// informers "<group><version>informers" (the group's "<group>informers") and apply
// configurations "apply<group><version>".
func (t *Tree) ImportNames() map[string]string {
	names := map[string]string{
		DiscoveryPkg:                          "discovery",
		DiscoveryPkg + "/fake":                "fakediscovery",
		ApplyMetaPkg:                          "applymetav1",
		TestingPkg:                            "testing",
		RestPkg:                               "rest",
		t.ClientsetPath():                     "versioned",
		t.ClientsetPath() + "/scheme":         "scheme",
		t.InformersPath("internalinterfaces"): "internalinterfaces",
		t.ApplyPath("internal"):               "internal",
		t.ApplyPath(""):                       "applyconfiguration",
	}
	for _, gv := range t.GroupVersions {
		seg := gv.Group.ClientPackageName + gv.Version.Name
		names[gv.Version.Package.Path] = seg
		names[t.TypedPath(gv)] = "typed" + seg
		names[t.TypedPath(gv)+"/fake"] = "fake" + seg
		names[t.ListersPath(gv)] = seg + "listers"
		names[t.InformersPath(gv.Segment())] = seg + "informers"
		names[t.InformersPath(gv.Group.ClientPackageName)] = gv.Group.ClientPackageName + "informers"
		names[t.ApplyPath(gv.Segment())] = "apply" + seg
	}
	return names
}

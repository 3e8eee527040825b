package openapi

import (
	"reflect"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// ExtensionGVK is the OpenAPI extension naming the group-version-kinds of a definition or an
// operation: a list of {"group": ..., "version": ..., "kind": ...} objects.
const ExtensionGVK = "x-kubernetes-group-version-kind"

// DefinitionNamer maps Go type names ("github.com/acme/db/apis/db/v1.Database") to OpenAPI
// definition names and extensions, as kube-apiserver's openapi.DefinitionNamer does:
//
//   - a type of a package that holds the kinds of exactly one group version is named after the
//     group with its domain reversed: "com.example.db.v1.Database" for group "db.example.com",
//     version "v1" (as kube-apiserver names custom resources), and "io.k8s.api.core.v1.Namespace"
//     for the core group (""), as Kubernetes names its own;
//   - every other type keeps its package path with the first element reversed
//     (kube-openapi's ToRESTFriendlyName): "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".
//
// Types registered as kinds in the scheme get an ExtensionGVK extension listing their
// group-version-kinds, sorted. A DefinitionNamer is immutable and safe for concurrent use.
type DefinitionNamer struct {
	// prefixes maps a Go package path to its REST-friendly name prefix.
	prefixes map[string]string
	// gvks maps a Go type name to its kinds.
	gvks map[string][]metav1.GroupVersionKind
}

// NewDefinitionNamer returns a namer for the types registered in schemes. Internal versions
// (runtime.APIVersionInternal) are ignored.
func NewDefinitionNamer(schemes ...*runtime.Scheme) *DefinitionNamer {
	n := &DefinitionNamer{prefixes: map[string]string{}, gvks: map[string][]metav1.GroupVersionKind{}}
	pkgGVs := map[string]map[schema.GroupVersion]bool{}
	for _, s := range schemes {
		for gvk, typ := range s.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal {
				continue
			}
			name := util.GetCanonicalTypeName(reflect.New(typ).Interface())
			n.gvks[name] = appendGVK(n.gvks[name], metav1.GroupVersionKind(gvk))
			if pkgGVs[typ.PkgPath()] == nil {
				pkgGVs[typ.PkgPath()] = map[schema.GroupVersion]bool{}
			}
			pkgGVs[typ.PkgPath()][gvk.GroupVersion()] = true
		}
	}
	for pkg, gvs := range pkgGVs {
		if len(gvs) != 1 || strings.HasPrefix(pkg, "k8s.io/") {
			continue
		}
		for gv := range gvs {
			if gv.Group != "" {
				n.prefixes[pkg] = reverseDomain(gv.Group) + "." + gv.Version
			} else {
				n.prefixes[pkg] = "io.k8s.api.core." + gv.Version // the core group's names, as Kubernetes'
			}
		}
	}
	for name, list := range n.gvks {
		sort.Slice(list, func(i, j int) bool { return gvkLess(list[i], list[j]) })
		n.gvks[name] = list
	}
	return n
}

// GetDefinitionName returns the definition name of a canonical type name and, for kinds, its
// ExtensionGVK extension; it fits kube-openapi's common.Config.GetDefinitionName. Canonical
// names are kube-openapi's util.GetCanonicalTypeName: a Go package path, ".", the type name
// ("github.com/acme/db/apis/db/v1.Database"), or, for types with an OpenAPIModelName method
// such as apimachinery's metav1 types, that name ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
// which is already REST-friendly and kept as is.
func (n *DefinitionNamer) GetDefinitionName(name string) (string, spec.Extensions) {
	friendly := name
	if i := strings.LastIndex(name, "."); strings.Contains(name, "/") && i > 0 {
		friendly = util.ToRESTFriendlyName(name)
		if prefix, ok := n.prefixes[name[:i]]; ok {
			friendly = prefix + name[i:]
		}
	}
	list, ok := n.gvks[name]
	if !ok {
		return friendly, nil
	}
	ext := make([]any, 0, len(list))
	for _, gvk := range list {
		ext = append(ext, map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
	}
	return friendly, spec.Extensions{ExtensionGVK: ext}
}

// KindModelName returns the definition name Kubernetes gives a kind that has no Go type, a
// custom resource: the group with its domain reversed, the version and the kind
// ("com.example.stable.v1.CronTab"), as apiextensions-apiserver's builder names it.
func KindModelName(group, version, kind string) string {
	return reverseDomain(group) + "." + version + "." + kind
}

// reverseDomain turns "db.example.com" into "com.example.db".
func reverseDomain(group string) string {
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

func appendGVK(list []metav1.GroupVersionKind, gvk metav1.GroupVersionKind) []metav1.GroupVersionKind {
	for _, have := range list {
		if have == gvk {
			return list
		}
	}
	return append(list, gvk)
}

func gvkLess(a, b metav1.GroupVersionKind) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	if a.Version != b.Version {
		return a.Version < b.Version
	}
	return a.Kind < b.Kind
}

package informers

import (
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths the informers refer to besides clientlayout's.
const (
	contextPkg = "context"
	timePkg    = "time"
	reflectPkg = "reflect"
	syncPkg    = "sync"
	waitPkg    = "k8s.io/apimachinery/pkg/util/wait"
)

// New returns the informers generator; it has no errors of its own.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "informers".
func (generator) Name() string { return "informers" }

// informerTree is a tree restricted to the group versions with informer kinds.
type informerTree struct {
	*clientlayout.Tree
	gvs   []clientlayout.GroupVersion // Kinds narrowed to informer kinds
	names map[string]string
}

// Generate emits the informers of every tree of api that has informer kinds.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	fs := &emit.Files{}
	for _, t := range clientlayout.Trees(api) {
		it := &informerTree{Tree: t, names: t.ImportNames()}
		for _, gv := range t.GroupVersions {
			if kinds := Kinds(gv); len(kinds) > 0 {
				gv.Kinds = kinds
				it.gvs = append(it.gvs, gv)
			}
		}
		if len(it.gvs) == 0 {
			continue
		}
		fs.Add(filepath.Join(t.InformersDir(""), "factory.go"), factoryFile(it),
			"Package externalversions has the shared informer factory of the typed clientset.")
		fs.Add(filepath.Join(t.InformersDir(""), "generic.go"), genericFile(it), "")
		fs.Add(filepath.Join(t.InformersDir("internalinterfaces"), "factory_interfaces.go"), internalFile(it),
			"Package internalinterfaces has the factory interface the informers are built on.")
		for _, group := range groupsOf(it.gvs) {
			pkg := group[0].Group.ClientPackageName
			fs.Add(filepath.Join(t.InformersDir(pkg), "interface.go"), groupFile(it, group),
				"Package "+pkg+" has the shared informers of the "+group[0].Group.DisplayName()+" group.")
			for _, gv := range group {
				fs.Add(filepath.Join(t.InformersDir(gv.Segment()), "interface.go"), versionFile(it, gv),
					"Package "+gv.Version.Name+" has the shared informers of "+gv.DisplayName()+".")
				for _, k := range gv.Kinds {
					fs.Add(filepath.Join(t.InformersDir(gv.Segment()), clientlayout.FileName(k)), informerFile(it, gv, k), "")
				}
			}
		}
	}
	return fs.Result()
}

// Kinds returns the kinds of gv that get an informer: those whose tags allow list and watch,
// without +genclient:noVerbs, as informer-gen chooses them.
func Kinds(gv clientlayout.GroupVersion) []*model.Kind {
	var out []*model.Kind
	for _, k := range gv.Kinds {
		if !k.Client.NoVerbs && k.Client.HasVerb("list") && k.Client.HasVerb("watch") {
			out = append(out, k)
		}
	}
	return out
}

// groupsOf splits group versions (sorted by group) by group.
func groupsOf(gvs []clientlayout.GroupVersion) [][]clientlayout.GroupVersion {
	var out [][]clientlayout.GroupVersion
	for _, gv := range gvs {
		if n := len(out); n > 0 && out[n-1][0].Group == gv.Group {
			out[n-1] = append(out[n-1], gv)
			continue
		}
		out = append(out, []clientlayout.GroupVersion{gv})
	}
	return out
}

func (it *informerTree) file(sub, pkg string) *jen.File {
	return emit.NewFile(it.InformersPath(sub), pkg, it.names)
}

func (it *informerTree) internal(name string) *jen.Statement {
	return jen.Qual(it.InformersPath("internalinterfaces"), name)
}

func (it *informerTree) clientset() *jen.Statement {
	return jen.Qual(it.ClientsetPath(), "Interface")
}

func cache(name string) *jen.Statement { return jen.Qual(clientlayout.CachePkg, name) }

// internalFile is internalinterfaces/factory_interfaces.go.
func internalFile(it *informerTree) *jen.File {
	f := it.file("internalinterfaces", "internalinterfaces")
	f.Comment("NewInformerFunc takes the clientset and a resync period and returns a SharedIndexInformer.")
	f.Type().Id("NewInformerFunc").Func().Params(it.clientset(), jen.Qual(timePkg, "Duration")).Add(cache("SharedIndexInformer"))
	f.Comment("SharedInformerFactory is the small interface informers are added through, without an import cycle.")
	f.Type().Id("SharedInformerFactory").Interface(
		jen.Id("Start").Params(jen.Id("stopCh").Op("<-").Chan().Struct()),
		jen.Id("InformerFor").Params(jen.Id("obj").Qual(clientlayout.RuntimePkg, "Object"), jen.Id("newFunc").Id("NewInformerFunc")).Add(cache("SharedIndexInformer")),
		jen.Id("InformerName").Params().Op("*").Add(cache("InformerName")),
	)
	f.Comment("TweakListOptionsFunc is a function that transforms a metav1.ListOptions.")
	f.Type().Id("TweakListOptionsFunc").Func().Params(jen.Op("*").Qual(clientlayout.MetaV1Pkg, "ListOptions"))
	f.Comment("InformerOptions holds the options for creating an informer.")
	f.Type().Id("InformerOptions").Struct(
		jen.Comment("ResyncPeriod is the resync period for this informer; 0 means no resync."),
		jen.Id("ResyncPeriod").Qual(timePkg, "Duration"),
		jen.Line().Comment("Indexers are the indexers for this informer."),
		jen.Id("Indexers").Add(cache("Indexers")),
		jen.Line().Comment("InformerName identifies this informer in metrics (cache.NewInformerName); nil publishes none."),
		jen.Id("InformerName").Op("*").Add(cache("InformerName")),
		jen.Line().Comment("TweakListOptions is an optional function to modify the list options."),
		jen.Id("TweakListOptions").Id("TweakListOptionsFunc"),
	)
	return f
}

// groupFile is <group>/interface.go: the group's Interface over its versions.
func groupFile(it *informerTree, gvs []clientlayout.GroupVersion) *jen.File {
	pkg := gvs[0].Group.ClientPackageName
	f := it.file(pkg, pkg)
	var methods []jen.Code
	for _, gv := range gvs {
		vname := clientlayout.Public(gv.Version.Name)
		methods = append(methods, jen.Commentf("%s provides access to shared informers for resources in %s.", vname, vname),
			jen.Id(vname).Params().Qual(it.InformersPath(gv.Segment()), "Interface"))
	}
	f.Comment("Interface provides access to each of this group's versions.")
	f.Type().Id("Interface").Interface(methods...)
	factoryFields(f, it, true)
	f.Comment("New returns a new Interface.")
	newFunc(f, it, "group")
	for _, gv := range gvs {
		vname := clientlayout.Public(gv.Version.Name)
		f.Commentf("%s returns a new %s.Interface.", vname, gv.Version.Name)
		f.Func().Params(jen.Id("g").Op("*").Id("group")).Id(vname).Params().Qual(it.InformersPath(gv.Segment()), "Interface").Block(
			jen.Return(jen.Qual(it.InformersPath(gv.Segment()), "New").Call(jen.Id("g").Dot("factory"), jen.Id("g").Dot("namespace"), jen.Id("g").Dot("tweakListOptions"))))
	}
	return f
}

// factoryFields declares the unexported struct ("group" or "version") holding the factory,
// namespace and list options tweak.
func factoryFields(f *jen.File, it *informerTree, group bool) {
	name := "version"
	if group {
		name = "group"
	}
	f.Type().Id(name).Struct(
		jen.Id("factory").Add(it.internal("SharedInformerFactory")),
		jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Add(it.internal("TweakListOptionsFunc")),
	)
}

// newFunc declares New(f, namespace, tweakListOptions) Interface returning &<typ>{...}.
func newFunc(f *jen.File, it *informerTree, typ string) {
	f.Func().Id("New").Params(jen.Id("f").Add(it.internal("SharedInformerFactory")), jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Add(it.internal("TweakListOptionsFunc"))).Id("Interface").Block(
		jen.Return(jen.Op("&").Id(typ).Values(jen.Dict{jen.Id("factory"): jen.Id("f"), jen.Id("namespace"): jen.Id("namespace"),
			jen.Id("tweakListOptions"): jen.Id("tweakListOptions")})))
}

// versionFile is <group>/<version>/interface.go: the version's Interface over its informers.
func versionFile(it *informerTree, gv clientlayout.GroupVersion) *jen.File {
	f := it.file(gv.Segment(), gv.Version.Name)
	var methods []jen.Code
	for _, k := range gv.Kinds {
		methods = append(methods, jen.Commentf("%s returns a %sInformer.", k.Client.PluralName, k.Name),
			jen.Id(k.Client.PluralName).Params().Id("Typed"+k.Name+"Informer"))
	}
	f.Comment("Interface provides access to all the informers in this group version.")
	f.Type().Id("Interface").Interface(methods...)
	factoryFields(f, it, false)
	f.Comment("New returns a new Interface.")
	newFunc(f, it, "version")
	for _, k := range gv.Kinds {
		fields := jen.Dict{jen.Id("factory"): jen.Id("v").Dot("factory"), jen.Id("tweakListOptions"): jen.Id("v").Dot("tweakListOptions")}
		if k.Namespaced {
			fields[jen.Id("namespace")] = jen.Id("v").Dot("namespace")
		}
		f.Commentf("%s returns a Typed%sInformer.", k.Client.PluralName, k.Name)
		f.Func().Params(jen.Id("v").Op("*").Id("version")).Id(k.Client.PluralName).Params().Id("Typed" + k.Name + "Informer").Block(
			jen.Return(jen.Op("&").Id(clientlayout.Private(k.Name) + "Informer").Values(fields)))
	}
	return f
}

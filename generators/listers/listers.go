// Package listers is the generator of listers, as Kubernetes' lister-gen v0.37 writes them
// (the same exported API), from the model apigen already loaded: for every +genclient kind
// whose tags allow get and list, <Kind>Lister (and, for a namespaced kind,
// <Kind>NamespaceLister) over a client-go cache.Indexer, built on client-go's generic
// listers.ResourceIndexer, in listers/<group>/<version> of the tree of generated clients
// (generators/clientlayout), with empty expansion interfaces in
// expansion_generated.go.
package listers

import (
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

const labelsPkg = "k8s.io/apimachinery/pkg/labels"

// New returns the listers generator; it has no errors of its own.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "listers".
func (generator) Name() string { return "listers" }

// Generate emits the listers of every group version of every tree of api.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, t := range clientlayout.Trees(api) {
		names := t.ImportNames()
		for _, gv := range t.GroupVersions {
			kinds := Kinds(gv)
			if len(kinds) == 0 {
				continue
			}
			dir := t.ListersDir(gv)
			exp := emit.NewFile(t.ListersPath(gv), gv.Version.Name, names)
			for _, k := range kinds {
				fs.Add(filepath.Join(dir, clientlayout.FileName(k)), listerFile(t, gv, k, names), "")
				expansions(exp, k)
			}
			fs.Add(filepath.Join(dir, "expansion_generated.go"), exp,
				"Package "+gv.Version.Name+" has the listers of "+gv.DisplayName()+".")
		}
	}
	return fs.Result()
}

// Kinds returns the kinds of gv that get a lister: those whose tags allow get and list, as
// lister-gen chooses them.
func Kinds(gv clientlayout.GroupVersion) []*model.Kind {
	var out []*model.Kind
	for _, k := range gv.Kinds {
		if k.Client.HasVerb("get") && k.Client.HasVerb("list") {
			out = append(out, k)
		}
	}
	return out
}

// expansions declares the kind's empty lister expansion interfaces.
func expansions(f *jen.File, k *model.Kind) {
	f.Commentf("%sListerExpansion allows custom methods to be added to %sLister.", k.Name, k.Name)
	f.Type().Id(k.Name + "ListerExpansion").Interface()
	if k.Namespaced {
		f.Commentf("%sNamespaceListerExpansion allows custom methods to be added to %sNamespaceLister.", k.Name, k.Name)
		f.Type().Id(k.Name + "NamespaceListerExpansion").Interface()
	}
}

// listerFile is <kind>.go: the kind's lister interfaces, their implementations on
// listers.ResourceIndexer and NewLister.
func listerFile(t *clientlayout.Tree, gv clientlayout.GroupVersion, k *model.Kind, names map[string]string) *jen.File {
	f := emit.NewFile(t.ListersPath(gv), gv.Version.Name, names)
	obj := func() *jen.Statement { return jen.Op("*").Add(emit.Qual(k.Type)) }
	plural, private := k.Client.PluralName, clientlayout.Private(k.Name)
	list := func(what string) []jen.Code {
		return []jen.Code{
			jen.Commentf("List lists all %s in the indexer%s.", plural, what),
			jen.Comment("Objects returned here must be treated as read-only."),
			jen.Id("List").Params(jen.Id("selector").Qual(labelsPkg, "Selector")).Params(jen.Id("ret").Index().Add(obj()), jen.Err().Error()),
		}
	}
	get := func(what string) []jen.Code {
		return []jen.Code{
			jen.Commentf("Get retrieves the %s from the indexer for a given %s.", k.Name, what),
			jen.Comment("Objects returned here must be treated as read-only."),
			jen.Id("Get").Params(jen.Id("name").String()).Params(obj(), jen.Error()),
		}
	}
	indexer := func() *jen.Statement { return jen.Qual(clientlayout.ListersPkg, "ResourceIndexer").Types(obj()) }
	methods := list("")
	if k.Namespaced {
		methods = append(methods, jen.Commentf("%s returns an object that can list and get %s.", plural, plural),
			jen.Id(plural).Params(jen.Id("namespace").String()).Id(k.Name+"NamespaceLister"))
	} else {
		methods = append(methods, get("name")...)
	}
	f.Commentf("%sLister helps list %s.", k.Name, plural)
	f.Comment("All objects returned here must be treated as read-only.")
	f.Type().Id(k.Name + "Lister").Interface(append(methods, jen.Id(k.Name+"ListerExpansion"))...)
	f.Commentf("%sLister implements the %sLister interface.", private, k.Name)
	f.Type().Id(private + "Lister").Struct(indexer())
	f.Commentf("New%sLister returns a new %sLister.", k.Name, k.Name)
	f.Func().Id("New" + k.Name + "Lister").Params(jen.Id("indexer").Qual(clientlayout.CachePkg, "Indexer")).Id(k.Name + "Lister").Block(
		jen.Return(jen.Op("&").Id(private + "Lister").Values(jen.Qual(clientlayout.ListersPkg, "New").Types(obj()).Call(
			jen.Id("indexer"), jen.Qual(gv.Version.Package.Path, "Resource").Call(jen.Lit(strings.ToLower(k.Name)))))))
	if !k.Namespaced {
		return f
	}
	f.Commentf("%s returns an object that can list and get %s.", plural, plural)
	f.Func().Params(jen.Id("s").Op("*").Id(private + "Lister")).Id(plural).Params(jen.Id("namespace").String()).Id(k.Name + "NamespaceLister").Block(
		jen.Return(jen.Id(private + "NamespaceLister").Values(jen.Qual(clientlayout.ListersPkg, "NewNamespaced").Types(obj()).Call(
			jen.Id("s").Dot("ResourceIndexer"), jen.Id("namespace")))))
	f.Commentf("%sNamespaceLister helps list and get %s.", k.Name, plural)
	f.Comment("All objects returned here must be treated as read-only.")
	f.Type().Id(k.Name + "NamespaceLister").Interface(append(append(list(" for a given namespace"), get("namespace and name")...),
		jen.Id(k.Name+"NamespaceListerExpansion"))...)
	f.Commentf("%sNamespaceLister implements the %sNamespaceLister interface.", private, k.Name)
	f.Type().Id(private + "NamespaceLister").Struct(indexer())
	return f
}

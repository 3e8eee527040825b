package informers

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// kindInformer holds what one kind's informer file refers to.
type kindInformer struct {
	it *informerTree
	gv clientlayout.GroupVersion
	k  *model.Kind
}

func (ki kindInformer) obj() *jen.Statement { return emit.Qual(ki.k.Type) }

// typed is cache's generic type name instantiated with *<Kind>.
func (ki kindInformer) typed(name string) *jen.Statement {
	return cache(name).Types(jen.Op("*").Add(ki.obj()))
}

// params returns client, [namespace,] and rest.
func (ki kindInformer) params(rest ...jen.Code) []jen.Code {
	p := []jen.Code{jen.Id("client").Add(ki.it.clientset())}
	if ki.k.Namespaced {
		p = append(p, jen.Id("namespace").String())
	}
	return append(p, rest...)
}

// args returns client, [namespace,] and rest as call arguments.
func (ki kindInformer) args(rest ...jen.Code) []jen.Code {
	a := []jen.Code{jen.Id("client")}
	if ki.k.Namespaced {
		a = append(a, jen.Id("namespace"))
	}
	return append(a, rest...)
}

// informerFile is <kind>.go: the kind's informer interfaces, type aliases and constructors.
func informerFile(it *informerTree, gv clientlayout.GroupVersion, k *model.Kind) *jen.File {
	ki := kindInformer{it: it, gv: gv, k: k}
	f := it.file(gv.Segment(), gv.Version.Name)
	lister := jen.Qual(it.ListersPath(gv), k.Name+"Lister")
	name := k.Name
	f.Commentf("%sInformer provides access to a shared informer and lister for %s. Prefer the type-safe", name, k.Client.PluralName)
	f.Commentf("variant (see [Typed%sInformer]).", name)
	f.Type().Id(name+"Informer").Interface(jen.Id("Informer").Params().Add(cache("SharedIndexInformer")), jen.Id("Lister").Params().Add(lister.Clone()))
	f.Commentf("Typed%sInformer provides access to a shared informer and lister for %s, including the", name, k.Client.PluralName)
	f.Commentf("type-safe TypedInformer variant. It is a superset of %sInformer.", name)
	f.Type().Id("Typed"+name+"Informer").Interface(jen.Id("Informer").Params().Add(cache("SharedIndexInformer")),
		jen.Id("TypedInformer").Params().Id(name+"IndexInformer"), jen.Id("Lister").Params().Add(lister.Clone()))
	f.Commentf("%sIndexInformer is a wrapper around the underlying [cache.SharedIndexInformer] with type-safe variants", name)
	f.Comment("of several methods.")
	f.Type().Id(name + "IndexInformer").Add(ki.typed("TypedSharedIndexInformer"))
	for _, alias := range []struct{ suffix, typ string }{
		{"HandlerFuncs", "TypedResourceEventHandlerFuncs"}, {"DetailedHandlerFuncs", "TypedResourceEventHandlerDetailedFuncs"},
		{"FilteringHandler", "TypedFilteringResourceEventHandler"}, {"Indexers", "TypedIndexers"},
	} {
		f.Commentf("%s%s is a specialization of [cache.%s] for %s.", name, alias.suffix, alias.typ, name)
		f.Type().Id(name + alias.suffix).Op("=").Add(ki.typed(alias.typ))
	}
	f.Commentf("Deleted%s is a specialization of [cache.DeletedObject] for %s.", name, name)
	f.Type().Id("Deleted" + name).Op("=").Add(ki.typed("DeletedObject"))
	fields := []jen.Code{jen.Id("factory").Add(it.internal("SharedInformerFactory")), jen.Id("tweakListOptions").Add(it.internal("TweakListOptionsFunc"))}
	if k.Namespaced {
		fields = append(fields, jen.Id("namespace").String())
	}
	f.Type().Id(clientlayout.Private(name) + "Informer").Struct(fields...)
	ki.constructors(f)
	ki.methods(f, lister)
	return f
}

// constructors declares the New...Informer functions.
func (ki kindInformer) constructors(f *jen.File) {
	name := ki.k.Name
	opts := func(d jen.Dict) jen.Code { return ki.it.internal("InformerOptions").Values(d) }
	toIndexers := func() *jen.Statement { return cache("TypedIndexersToIndexers").Call(jen.Id("indexers")) }
	resync, tweak := jen.Id("resyncPeriod"), jen.Id("tweakListOptions")
	for _, c := range []struct {
		fn, doc string
		typed   bool
		params  []jen.Code
		options jen.Dict
	}{
		{"New" + name + "Informer", "[NewTyped" + name + "Informer]", false,
			[]jen.Code{jen.Id("resyncPeriod").Qual(timePkg, "Duration"), jen.Id("indexers").Add(cache("Indexers"))},
			jen.Dict{jen.Id("ResyncPeriod"): resync, jen.Id("Indexers"): jen.Id("indexers")}},
		{"NewTyped" + name + "Informer", "", true,
			[]jen.Code{jen.Id("resyncPeriod").Qual(timePkg, "Duration"), jen.Id("indexers").Id(name + "Indexers")},
			jen.Dict{jen.Id("ResyncPeriod"): resync, jen.Id("Indexers"): toIndexers()}},
		{"NewFiltered" + name + "Informer", "[NewTypedFiltered" + name + "Informer]", false,
			[]jen.Code{jen.Id("resyncPeriod").Qual(timePkg, "Duration"), jen.Id("indexers").Add(cache("Indexers")), jen.Id("tweakListOptions").Add(ki.it.internal("TweakListOptionsFunc"))},
			jen.Dict{jen.Id("ResyncPeriod"): resync, jen.Id("Indexers"): jen.Id("indexers"), jen.Id("TweakListOptions"): tweak}},
		{"NewTypedFiltered" + name + "Informer", "", true,
			[]jen.Code{jen.Id("resyncPeriod").Qual(timePkg, "Duration"), jen.Id("indexers").Id(name + "Indexers"), jen.Id("tweakListOptions").Add(ki.it.internal("TweakListOptionsFunc"))},
			jen.Dict{jen.Id("ResyncPeriod"): resync, jen.Id("Indexers"): toIndexers(), jen.Id("TweakListOptions"): tweak}},
	} {
		f.Commentf("%s constructs a new informer for %s type. Always prefer using an informer factory to get a shared", c.fn, name)
		f.Comment("informer instead of getting an independent one: it saves memory and connections to the server.")
		if c.doc != "" {
			f.Commentf("If you really need an independent one, prefer the type-safe variant (see %s).", c.doc)
		}
		ret := cache("SharedIndexInformer")
		if c.typed {
			ret = jen.Id(name + "IndexInformer")
		}
		f.Func().Id(c.fn).Params(ki.params(c.params...)...).Add(ret).Block(
			jen.Return(jen.Id("NewTyped" + name + "InformerWithOptions").Call(ki.args(opts(c.options))...)))
	}
	optParam := jen.Id("options").Add(ki.it.internal("InformerOptions"))
	f.Commentf("New%sInformerWithOptions constructs a new informer for %s type with additional options; prefer", name, name)
	f.Commentf("an informer factory, or the type-safe variant (see [NewTyped%sInformerWithOptions]).", name)
	f.Func().Id("New" + name + "InformerWithOptions").Params(ki.params(optParam.Clone())...).Add(cache("SharedIndexInformer")).Block(
		jen.Return(jen.Id("NewTyped" + name + "InformerWithOptions").Call(ki.args(jen.Id("options"))...)))
	f.Commentf("NewTyped%sInformerWithOptions constructs a new informer for %s type with additional options. It", name, name)
	f.Comment("lists and watches through the clientset with WatchList semantics (a streaming list where supported).")
	f.Func().Id("NewTyped" + name + "InformerWithOptions").Params(ki.params(optParam.Clone())...).Id(name + "IndexInformer").Block(ki.withOptionsBody()...)
}

// withOptionsBody is the body of NewTyped<Kind>InformerWithOptions.
func (ki kindInformer) withOptionsBody() []jen.Code {
	ns := []jen.Code{}
	if ki.k.Namespaced {
		ns = append(ns, jen.Id("namespace"))
	}
	client := func() *jen.Statement {
		return jen.Id("client").Dot(ki.gv.GoName()).Call().Dot(ki.k.Client.PluralName).Call(ns...)
	}
	listOpts := jen.Id("opts").Qual(clientlayout.MetaV1Pkg, "ListOptions")
	tweak := jen.If(jen.Id("tweakListOptions").Op("!=").Nil()).Block(jen.Id("tweakListOptions").Call(jen.Op("&").Id("opts")))
	fn := func(call string, ctx jen.Code, ret jen.Code, withCtx bool) jen.Code {
		params := []jen.Code{listOpts.Clone()}
		if withCtx {
			params = append([]jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}, params...)
		}
		return jen.Func().Params(params...).Params(ret, jen.Error()).Block(tweak.Clone(), jen.Return(client().Dot(call).Call(ctx, jen.Id("opts"))))
	}
	obj := func() jen.Code { return jen.Qual(clientlayout.RuntimePkg, "Object") }
	w := func() jen.Code { return jen.Qual(clientlayout.WatchPkg, "Interface") }
	bg := func() jen.Code { return jen.Qual(contextPkg, "Background").Call() }
	lw := jen.Op("&").Add(cache("ListWatch")).Values(jen.Dict{
		jen.Id("ListFunc"):             fn("List", bg(), obj(), false),
		jen.Id("WatchFunc"):            fn("Watch", bg(), w(), false),
		jen.Id("ListWithContextFunc"):  fn("List", jen.Id("ctx"), obj(), true),
		jen.Id("WatchFuncWithContext"): fn("Watch", jen.Id("ctx"), w(), true),
	})
	return []jen.Code{
		jen.Id("gvr").Op(":=").Qual(clientlayout.SchemaPkg, "GroupVersionResource").Values(jen.Dict{
			jen.Id("Group"): jen.Lit(ki.gv.Group.Name), jen.Id("Version"): jen.Lit(ki.gv.Version.Name), jen.Id("Resource"): jen.Lit(ki.k.Plural)}),
		jen.Id("identifier").Op(":=").Id("options").Dot("InformerName").Dot("WithResource").Call(jen.Id("gvr")),
		jen.Id("tweakListOptions").Op(":=").Id("options").Dot("TweakListOptions"),
		jen.Return(ki.typed("NewTypedSharedIndexInformer").Call(cache("NewSharedIndexInformerWithOptions").Call(
			cache("ToListWatcherWithWatchListSemantics").Call(lw, jen.Id("client")),
			jen.Op("&").Add(ki.obj()).Values(),
			cache("SharedIndexInformerOptions").Values(jen.Dict{
				jen.Id("ResyncPeriod"): jen.Id("options").Dot("ResyncPeriod"),
				jen.Id("Indexers"):     jen.Id("options").Dot("Indexers"),
				jen.Id("Identifier"):   jen.Id("identifier"),
			}),
		))),
	}
}

// methods declares defaultInformer, Informer, TypedInformer, Lister and the converters.
func (ki kindInformer) methods(f *jen.File, lister *jen.Statement) {
	name, private := ki.k.Name, clientlayout.Private(ki.k.Name)+"Informer"
	recv := func() *jen.Statement { return jen.Id("f").Op("*").Id(private) }
	args := []jen.Code{jen.Id("client")}
	if ki.k.Namespaced {
		args = append(args, jen.Id("f").Dot("namespace"))
	}
	args = append(args, ki.it.internal("InformerOptions").Values(jen.Dict{
		jen.Id("ResyncPeriod"):     jen.Id("resyncPeriod"),
		jen.Id("Indexers"):         cache("Indexers").Values(jen.Dict{cache("NamespaceIndex"): cache("MetaNamespaceIndexFunc")}),
		jen.Id("InformerName"):     jen.Id("f").Dot("factory").Dot("InformerName").Call(),
		jen.Id("TweakListOptions"): jen.Id("f").Dot("tweakListOptions"),
	}))
	f.Func().Params(recv()).Id("defaultInformer").Params(jen.Id("client").Add(ki.it.clientset()), jen.Id("resyncPeriod").Qual(timePkg, "Duration")).
		Add(cache("SharedIndexInformer")).Block(jen.Return(jen.Id("NewTyped" + name + "InformerWithOptions").Call(args...)))
	f.Comment("Informer returns the factory's shared informer of the kind.")
	f.Func().Params(recv()).Id("Informer").Params().Add(cache("SharedIndexInformer")).Block(jen.Return(jen.Id("f").Dot("TypedInformer").Call()))
	f.Comment("TypedInformer returns the factory's shared informer of the kind, type-safe.")
	f.Func().Params(recv()).Id("TypedInformer").Params().Id(name + "IndexInformer").Block(
		jen.Return(ki.typed("NewTypedSharedIndexInformer").Call(jen.Id("f").Dot("factory").Dot("InformerFor").Call(
			jen.Op("&").Add(ki.obj()).Values(), jen.Id("f").Dot("defaultInformer")))))
	f.Comment("Lister returns a lister over the shared informer's indexer.")
	f.Func().Params(recv()).Id("Lister").Params().Add(lister.Clone()).Block(
		jen.Return(jen.Qual(ki.it.ListersPath(ki.gv), "New"+name+"Lister").Call(jen.Id("f").Dot("Informer").Call().Dot("GetIndexer").Call())))
	adapter := clientlayout.Private(name) + "TypedInformerAdapter"
	f.Commentf("ToTyped%sInformer converts an untyped informer into a Typed%sInformer. It is only safe if the", name, name)
	f.Commentf("informer handles *%s objects; type-safe methods of the result panic otherwise.", name)
	f.Func().Id("ToTyped"+name+"Informer").Params(jen.Id("informer").Id(name+"Informer")).Id("Typed"+name+"Informer").Block(
		jen.If(jen.List(jen.Id("informer"), jen.Id("ok")).Op(":=").Id("informer").Assert(jen.Id("Typed"+name+"Informer")), jen.Id("ok")).Block(jen.Return(jen.Id("informer"))),
		jen.Return(jen.Op("&").Id(adapter).Values(jen.Id("informer"))))
	f.Type().Id(adapter).Struct(jen.Id(name + "Informer"))
	f.Comment("TypedInformer returns the wrapped informer, type-safe.")
	f.Func().Params(jen.Id("a").Op("*").Id(adapter)).Id("TypedInformer").Params().Id(name + "IndexInformer").Block(
		jen.Return(ki.typed("NewTypedSharedIndexInformer").Call(jen.Id("a").Dot("Informer").Call())))
	f.Commentf("To%sIndexInformer converts an untyped informer into a %sIndexInformer. It is only safe if the", name, name)
	f.Commentf("informer handles *%s objects; type-safe methods of the result panic otherwise.", name)
	f.Func().Id("To"+name+"IndexInformer").Params(jen.Id("informer").Add(cache("SharedIndexInformer"))).Id(name+"IndexInformer").Block(
		jen.If(jen.List(jen.Id("informer"), jen.Id("ok")).Op(":=").Id("informer").Assert(jen.Id(name+"IndexInformer")), jen.Id("ok")).Block(jen.Return(jen.Id("informer"))),
		jen.Return(ki.typed("NewTypedSharedIndexInformer").Call(jen.Id("informer"))))
}

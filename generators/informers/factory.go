package informers

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
)

// factoryFile is factory.go: SharedInformerFactory, its options and constructors, as
// informer-gen's.
func factoryFile(it *informerTree) *jen.File {
	f := it.file("", "externalversions")
	rtype := func() *jen.Statement { return jen.Qual(reflectPkg, "Type") }
	dur := func() *jen.Statement { return jen.Qual(timePkg, "Duration") }
	f.Comment("SharedInformerOption defines the functional option type for SharedInformerFactory.")
	f.Type().Id("SharedInformerOption").Func().Params(jen.Op("*").Id("sharedInformerFactory")).Op("*").Id("sharedInformerFactory")
	f.Type().Id("sharedInformerFactory").Struct(
		jen.Id("client").Add(it.clientset()),
		jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Add(it.internal("TweakListOptionsFunc")),
		jen.Id("lock").Qual(syncPkg, "Mutex"),
		jen.Id("defaultResync").Add(dur()),
		jen.Id("customResync").Map(rtype()).Add(dur()),
		jen.Id("transform").Add(cache("TransformFunc")),
		jen.Id("informerName").Op("*").Add(cache("InformerName")),
		jen.Line(),
		jen.Id("informers").Map(rtype()).Add(cache("SharedIndexInformer")),
		jen.Comment("startedInformers tracks which informers have been started, so Start may be called again."),
		jen.Id("startedInformers").Map(rtype()).Bool(),
		jen.Comment("wg tracks the goroutines started."),
		jen.Id("wg").Qual(syncPkg, "WaitGroup"),
		jen.Comment("shuttingDown is true once Shutdown has been called (it may still be waiting for goroutines)."),
		jen.Id("shuttingDown").Bool(),
	)
	options(f, it)
	constructors(f, it)
	lifecycle(f, it)
	informerFor(f, it)
	factoryInterface(f, it)
	return f
}

// option declares a SharedInformerOption constructor setting one field.
func option(f *jen.File, comment, name string, param jen.Code, body ...jen.Code) {
	f.Comment(comment)
	f.Func().Id(name).Params(param).Id("SharedInformerOption").Block(
		jen.Return(jen.Func().Params(jen.Id("factory").Op("*").Id("sharedInformerFactory")).Op("*").Id("sharedInformerFactory").Block(
			append(body, jen.Return(jen.Id("factory")))...)))
}

// options declares WithCustomResyncConfig, WithTweakListOptions, WithNamespace, WithTransform,
// WithInformerName and InformerName.
func options(f *jen.File, it *informerTree) {
	set := func(field string) jen.Code { return jen.Id("factory").Dot(field).Op("=").Id(field) }
	option(f, "WithCustomResyncConfig sets a custom resync period for the specified informer types.", "WithCustomResyncConfig",
		jen.Id("resyncConfig").Map(jen.Qual(clientlayout.MetaV1Pkg, "Object")).Qual(timePkg, "Duration"),
		jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("resyncConfig")).Block(
			jen.Id("factory").Dot("customResync").Index(jen.Qual(reflectPkg, "TypeOf").Call(jen.Id("k"))).Op("=").Id("v")))
	option(f, "WithTweakListOptions sets a custom filter on all listers of the configured SharedInformerFactory.", "WithTweakListOptions",
		jen.Id("tweakListOptions").Add(it.internal("TweakListOptionsFunc")), set("tweakListOptions"))
	option(f, "WithNamespace limits the SharedInformerFactory to the specified namespace.", "WithNamespace",
		jen.Id("namespace").String(), set("namespace"))
	option(f, "WithTransform sets a transform on all informers.", "WithTransform", jen.Id("transform").Add(cache("TransformFunc")), set("transform"))
	option(f, "WithInformerName sets the InformerName (created with cache.NewInformerName) identifying the informers in metrics.",
		"WithInformerName", jen.Id("informerName").Op("*").Add(cache("InformerName")), set("informerName"))
	f.Comment("InformerName returns the factory's InformerName, nil if none was set.")
	f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id("InformerName").Params().Op("*").Add(cache("InformerName")).
		Block(jen.Return(jen.Id("f").Dot("informerName")))
}

// constructors declares NewSharedInformerFactory, NewFilteredSharedInformerFactory and
// NewSharedInformerFactoryWithOptions.
func constructors(f *jen.File, it *informerTree) {
	client := func() jen.Code { return jen.Id("client").Add(it.clientset()) }
	resync := func() jen.Code { return jen.Id("defaultResync").Qual(timePkg, "Duration") }
	f.Comment("NewSharedInformerFactory constructs a new instance of sharedInformerFactory for all namespaces.")
	f.Func().Id("NewSharedInformerFactory").Params(client(), resync()).Id("SharedInformerFactory").Block(
		jen.Return(jen.Id("NewSharedInformerFactoryWithOptions").Call(jen.Id("client"), jen.Id("defaultResync"))))
	f.Comment("NewFilteredSharedInformerFactory constructs a new instance of sharedInformerFactory. Listers obtained via")
	f.Comment("this SharedInformerFactory will be subject to the same filters as specified here.")
	f.Comment("")
	f.Comment("Deprecated: Please use NewSharedInformerFactoryWithOptions instead")
	f.Func().Id("NewFilteredSharedInformerFactory").Params(client(), resync(), jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Add(it.internal("TweakListOptionsFunc"))).Id("SharedInformerFactory").Block(
		jen.Return(jen.Id("NewSharedInformerFactoryWithOptions").Call(jen.Id("client"), jen.Id("defaultResync"),
			jen.Id("WithNamespace").Call(jen.Id("namespace")), jen.Id("WithTweakListOptions").Call(jen.Id("tweakListOptions")))))
	f.Comment("NewSharedInformerFactoryWithOptions constructs a new instance of a SharedInformerFactory with additional options.")
	f.Func().Id("NewSharedInformerFactoryWithOptions").Params(client(), resync(), jen.Id("options").Op("...").Id("SharedInformerOption")).
		Id("SharedInformerFactory").Block(
		jen.Id("factory").Op(":=").Op("&").Id("sharedInformerFactory").Values(jen.Dict{
			jen.Id("client"):           jen.Id("client"),
			jen.Id("namespace"):        jen.Qual(clientlayout.MetaV1Pkg, "NamespaceAll"),
			jen.Id("defaultResync"):    jen.Id("defaultResync"),
			jen.Id("informers"):        jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Add(cache("SharedIndexInformer"))),
			jen.Id("startedInformers"): jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Bool()),
			jen.Id("customResync"):     jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Qual(timePkg, "Duration")),
		}),
		jen.For(jen.List(jen.Id("_"), jen.Id("opt")).Op(":=").Range().Id("options")).Block(
			jen.Id("factory").Op("=").Id("opt").Call(jen.Id("factory"))),
		jen.Return(jen.Id("factory")),
	)
}

// lifecycle declares Start, StartWithContext, Shutdown, WaitForCacheSync and
// WaitForCacheSyncWithContext.
func lifecycle(f *jen.File, it *informerTree) {
	recv := func() *jen.Statement { return jen.Id("f").Op("*").Id("sharedInformerFactory") }
	lock := []jen.Code{jen.Id("f").Dot("lock").Dot("Lock").Call(), jen.Defer().Id("f").Dot("lock").Dot("Unlock").Call()}
	f.Comment("Start starts every informer requested so far that is not running, until stopCh is closed.")
	f.Func().Params(recv()).Id("Start").Params(jen.Id("stopCh").Op("<-").Chan().Struct()).Block(
		jen.Id("f").Dot("StartWithContext").Call(jen.Qual(waitPkg, "ContextForChannel").Call(jen.Id("stopCh"))))
	f.Comment("StartWithContext starts every informer requested so far that is not running, until ctx ends.")
	f.Func().Params(recv()).Id("StartWithContext").Params(jen.Id("ctx").Qual(contextPkg, "Context")).Block(append(lock,
		jen.If(jen.Id("f").Dot("shuttingDown")).Block(jen.Return()),
		jen.For(jen.List(jen.Id("informerType"), jen.Id("informer")).Op(":=").Range().Id("f").Dot("informers")).Block(
			jen.If(jen.Op("!").Id("f").Dot("startedInformers").Index(jen.Id("informerType"))).Block(
				jen.Id("f").Dot("wg").Dot("Go").Call(jen.Func().Params().Block(jen.Id("informer").Dot("RunWithContext").Call(jen.Id("ctx")))),
				jen.Id("f").Dot("startedInformers").Index(jen.Id("informerType")).Op("=").True())))...)
	f.Comment("Shutdown marks the factory as shutting down (Start does nothing any more) and waits for its goroutines,")
	f.Comment("which end when their stop channels close or contexts end.")
	f.Func().Params(recv()).Id("Shutdown").Params().Block(
		jen.Id("f").Dot("lock").Dot("Lock").Call(),
		jen.Id("f").Dot("shuttingDown").Op("=").True(),
		jen.Id("f").Dot("lock").Dot("Unlock").Call(),
		jen.Id("f").Dot("wg").Dot("Wait").Call(),
		jen.Id("f").Dot("informerName").Dot("Release").Call(),
	)
	f.Comment("WaitForCacheSync blocks until all started informers' caches were synced or stopCh is closed.")
	f.Func().Params(recv()).Id("WaitForCacheSync").Params(jen.Id("stopCh").Op("<-").Chan().Struct()).Map(jen.Qual(reflectPkg, "Type")).Bool().Block(
		jen.Id("result").Op(":=").Id("f").Dot("WaitForCacheSyncWithContext").Call(jen.Qual(waitPkg, "ContextForChannel").Call(jen.Id("stopCh"))),
		jen.Return(jen.Id("result").Dot("Synced")))
	f.Comment("WaitForCacheSyncWithContext blocks until all started informers' caches were synced or ctx ends; the result")
	f.Comment("says which synced, with ctx's cause as its error when one did not.")
	f.Func().Params(recv()).Id("WaitForCacheSyncWithContext").Params(jen.Id("ctx").Qual(contextPkg, "Context")).Add(cache("SyncResult")).Block(
		jen.Id("informers").Op(":=").Func().Params().Map(jen.Qual(reflectPkg, "Type")).Add(cache("SharedIndexInformer")).Block(append(lock,
			jen.Id("informers").Op(":=").Map(jen.Qual(reflectPkg, "Type")).Add(cache("SharedIndexInformer")).Values(),
			jen.For(jen.List(jen.Id("informerType"), jen.Id("informer")).Op(":=").Range().Id("f").Dot("informers")).Block(
				jen.If(jen.Id("f").Dot("startedInformers").Index(jen.Id("informerType"))).Block(
					jen.Id("informers").Index(jen.Id("informerType")).Op("=").Id("informer"))),
			jen.Return(jen.Id("informers")))...).Call(),
		jen.Id("cacheSyncs").Op(":=").Make(jen.Index().Add(cache("DoneChecker")), jen.Lit(0), jen.Len(jen.Id("informers"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("informer")).Op(":=").Range().Id("informers")).Block(
			jen.Id("cacheSyncs").Op("=").Append(jen.Id("cacheSyncs"), jen.Id("informer").Dot("HasSyncedChecker").Call())),
		cache("WaitFor").Call(jen.Id("ctx"), jen.Lit(""), jen.Id("cacheSyncs").Op("...")),
		jen.Id("res").Op(":=").Add(cache("SyncResult")).Values(jen.Dict{jen.Id("Synced"): jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Bool(), jen.Len(jen.Id("informers")))}),
		jen.Id("failed").Op(":=").False(),
		jen.For(jen.List(jen.Id("informType"), jen.Id("informer")).Op(":=").Range().Id("informers")).Block(
			jen.Id("hasSynced").Op(":=").Id("informer").Dot("HasSynced").Call(),
			jen.If(jen.Op("!").Id("hasSynced")).Block(jen.Id("failed").Op("=").True()),
			jen.Id("res").Dot("Synced").Index(jen.Id("informType")).Op("=").Id("hasSynced")),
		jen.If(jen.Id("failed")).Block(jen.Id("res").Dot("Err").Op("=").Qual(contextPkg, "Cause").Call(jen.Id("ctx"))),
		jen.Return(jen.Id("res")),
	)
}

// informerFor declares InformerFor, which shares one informer per object type.
func informerFor(f *jen.File, it *informerTree) {
	f.Comment("InformerFor returns the SharedIndexInformer for obj's type, creating it with newFunc on first use.")
	f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id("InformerFor").Params(
		jen.Id("obj").Qual(clientlayout.RuntimePkg, "Object"), jen.Id("newFunc").Add(it.internal("NewInformerFunc"))).
		Add(cache("SharedIndexInformer")).Block(
		jen.Id("f").Dot("lock").Dot("Lock").Call(),
		jen.Defer().Id("f").Dot("lock").Dot("Unlock").Call(),
		jen.Id("informerType").Op(":=").Qual(reflectPkg, "TypeOf").Call(jen.Id("obj")),
		jen.List(jen.Id("informer"), jen.Id("exists")).Op(":=").Id("f").Dot("informers").Index(jen.Id("informerType")),
		jen.If(jen.Id("exists")).Block(jen.Return(jen.Id("informer"))),
		jen.List(jen.Id("resyncPeriod"), jen.Id("exists")).Op(":=").Id("f").Dot("customResync").Index(jen.Id("informerType")),
		jen.If(jen.Op("!").Id("exists")).Block(jen.Id("resyncPeriod").Op("=").Id("f").Dot("defaultResync")),
		jen.Id("informer").Op("=").Id("newFunc").Call(jen.Id("f").Dot("client"), jen.Id("resyncPeriod")),
		jen.If(jen.Id("f").Dot("transform").Op("!=").Nil()).Block(jen.Id("informer").Dot("SetTransform").Call(jen.Id("f").Dot("transform"))),
		jen.Id("f").Dot("informers").Index(jen.Id("informerType")).Op("=").Id("informer"),
		jen.Return(jen.Id("informer")),
	)
}

// factoryInterface declares SharedInformerFactory and the group accessors.
func factoryInterface(f *jen.File, it *informerTree) {
	methods := []jen.Code{
		it.internal("SharedInformerFactory"),
		jen.Line().Comment("Start initializes all requested informers, in goroutines that run until stopCh is closed; it does not block."),
		jen.Id("Start").Params(jen.Id("stopCh").Op("<-").Chan().Struct()),
		jen.Line().Comment("StartWithContext initializes all requested informers, in goroutines that run until ctx ends; it does not block."),
		jen.Id("StartWithContext").Params(jen.Id("ctx").Qual(contextPkg, "Context")),
		jen.Line().Comment("Shutdown marks the factory as shutting down and blocks until all its goroutines have ended."),
		jen.Id("Shutdown").Params(),
		jen.Line().Comment("WaitForCacheSync blocks until all started informers' caches were synced or stopCh is closed."),
		jen.Id("WaitForCacheSync").Params(jen.Id("stopCh").Op("<-").Chan().Struct()).Map(jen.Qual(reflectPkg, "Type")).Bool(),
		jen.Line().Comment("WaitForCacheSyncWithContext blocks until all started informers' caches were synced or ctx ends."),
		jen.Id("WaitForCacheSyncWithContext").Params(jen.Id("ctx").Qual(contextPkg, "Context")).Add(cache("SyncResult")),
		jen.Line().Comment("ForResource gives generic access to a shared informer of the matching type."),
		jen.Id("ForResource").Params(jen.Id("resource").Qual(clientlayout.SchemaPkg, "GroupVersionResource")).Params(jen.Id("GenericInformer"), jen.Error()),
		jen.Line().Comment("InformerFor returns the SharedIndexInformer for obj using an internal client."),
		jen.Id("InformerFor").Params(jen.Id("obj").Qual(clientlayout.RuntimePkg, "Object"), jen.Id("newFunc").Add(it.internal("NewInformerFunc"))).Add(cache("SharedIndexInformer")),
		jen.Line(),
	}
	for _, group := range groupsOf(it.gvs) {
		g := group[0].Group
		methods = append(methods, jen.Id(g.ClientGoName).Params().Qual(it.InformersPath(g.ClientPackageName), "Interface"))
	}
	f.Comment("SharedInformerFactory provides shared informers for resources in all known API group versions:")
	f.Comment("factory.<Group>().<Version>().<Kinds>() or ForResource; Start (or StartWithContext) runs the informers")
	f.Comment("requested so far, WaitForCacheSync waits for them, Shutdown stops the factory.")
	f.Type().Id("SharedInformerFactory").Interface(methods...)
	for _, group := range groupsOf(it.gvs) {
		g := group[0].Group
		f.Commentf("%s returns the informers of the %s group.", g.ClientGoName, g.DisplayName())
		f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id(g.ClientGoName).Params().Qual(it.InformersPath(g.ClientPackageName), "Interface").Block(
			jen.Return(jen.Qual(it.InformersPath(g.ClientPackageName), "New").Call(jen.Id("f"), jen.Id("f").Dot("namespace"), jen.Id("f").Dot("tweakListOptions"))))
	}
}

// genericFile is generic.go: GenericInformer and ForResource.
func genericFile(it *informerTree) *jen.File {
	f := it.file("", "externalversions")
	f.Comment("GenericInformer is a SharedIndexInformer with a generic lister, for any of the factory's resources.")
	f.Type().Id("GenericInformer").Interface(
		jen.Id("Informer").Params().Add(cache("SharedIndexInformer")),
		jen.Id("Lister").Params().Add(cache("GenericLister")),
	)
	f.Type().Id("genericInformer").Struct(
		jen.Id("informer").Add(cache("SharedIndexInformer")),
		jen.Id("resource").Qual(clientlayout.SchemaPkg, "GroupResource"),
	)
	f.Comment("Informer returns the SharedIndexInformer.")
	f.Func().Params(jen.Id("f").Op("*").Id("genericInformer")).Id("Informer").Params().Add(cache("SharedIndexInformer")).Block(jen.Return(jen.Id("f").Dot("informer")))
	f.Comment("Lister returns the GenericLister.")
	f.Func().Params(jen.Id("f").Op("*").Id("genericInformer")).Id("Lister").Params().Add(cache("GenericLister")).Block(
		jen.Return(cache("NewGenericLister").Call(jen.Id("f").Dot("Informer").Call().Dot("GetIndexer").Call(), jen.Id("f").Dot("resource"))))
	var cases []jen.Code
	for _, gv := range it.gvs {
		cases = append(cases, jen.Commentf("Group=%s, Version=%s", gv.Group.Name, gv.Version.Name))
		for _, k := range gv.Kinds {
			informer := jen.Id("f").Dot(gv.Group.ClientGoName).Call().Dot(clientlayout.Public(gv.Version.Name)).Call().Dot(k.Client.PluralName).Call().Dot("Informer").Call()
			cases = append(cases, jen.Case(jen.Qual(gv.Version.Package.Path, "SchemeGroupVersion").Dot("WithResource").Call(jen.Lit(k.Plural))).Block(
				jen.Return(jen.Op("&").Id("genericInformer").Values(jen.Dict{
					jen.Id("resource"): jen.Id("resource").Dot("GroupResource").Call(), jen.Id("informer"): informer}), jen.Nil())))
		}
	}
	f.Comment("ForResource gives generic access to a shared informer of the matching type; an unknown resource is an error.")
	f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id("ForResource").Params(jen.Id("resource").Qual(clientlayout.SchemaPkg, "GroupVersionResource")).
		Params(jen.Id("GenericInformer"), jen.Error()).Block(
		jen.Switch(jen.Id("resource")).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("no informer found for %v"), jen.Id("resource"))),
	)
	return f
}

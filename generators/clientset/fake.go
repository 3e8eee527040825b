package clientset

import (
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// fakeClientsetFile is fake/clientset_generated.go: NewSimpleClientset, NewClientset and the
// fake Clientset, as client-gen's.
func fakeClientsetFile(t *clientlayout.Tree, names map[string]string) *jen.File {
	f := newFile(t.ClientsetPath()+"/fake", "fake", names)
	testing := func(n string) *jen.Statement { return jen.Qual(clientlayout.TestingPkg, n) }
	f.Comment("NewSimpleClientset returns a clientset that will respond with the provided objects. It is backed")
	f.Comment("by a very simple object tracker that processes creates, updates and deletions as-is, without")
	f.Comment("field management, validation or defaults; prefer NewClientset, which supports server-side apply.")
	f.Func().Id("NewSimpleClientset").Params(jen.Id("objects").Op("...").Qual(clientlayout.RuntimePkg, "Object")).Op("*").Id("Clientset").Block(
		append([]jen.Code{jen.Id("o").Op(":=").Add(testing("NewObjectTracker")).Call(jen.Id("scheme"), jen.Id("codecs").Dot("UniversalDecoder").Call())},
			trackerClientset()...)...)
	f.Comment("Clientset implements the clientset's Interface on client-go's testing.Fake. Meant to be embedded")
	f.Comment("into a struct to get a default implementation, so that faking out just the method under test is easy.")
	f.Type().Id("Clientset").Struct(
		testing("Fake"),
		jen.Id("discovery").Op("*").Qual(clientlayout.DiscoveryPkg+"/fake", "FakeDiscovery"),
		jen.Id("tracker").Add(testing("ObjectTracker")),
	)
	recv := func() *jen.Statement { return jen.Id("c").Op("*").Id("Clientset") }
	f.Comment("Discovery returns the fake discovery client.")
	f.Func().Params(recv()).Id("Discovery").Params().Qual(clientlayout.DiscoveryPkg, "DiscoveryInterfaces").Block(jen.Return(jen.Id("c").Dot("discovery")))
	f.Comment("Tracker returns the object tracker the clientset's reactors serve.")
	f.Func().Params(recv()).Id("Tracker").Params().Add(testing("ObjectTracker")).Block(jen.Return(jen.Id("c").Dot("tracker")))
	f.Comment("IsWatchListSemanticsUnSupported tells client-go's reflector that this client does not support")
	f.Comment("WatchList (streaming lists): it returns true.")
	f.Func().Params(recv()).Id("IsWatchListSemanticsUnSupported").Params().Bool().Block(jen.Return(jen.True()))
	f.Comment("NewClientset returns a clientset that will respond with the provided objects, backed by a field-managed")
	f.Comment("object tracker: unlike NewSimpleClientset it supports server-side apply, with the apply configurations'")
	f.Comment("type converter. It does not validate or default.")
	f.Func().Id("NewClientset").Params(jen.Id("objects").Op("...").Qual(clientlayout.RuntimePkg, "Object")).Op("*").Id("Clientset").Block(
		append([]jen.Code{jen.Id("o").Op(":=").Add(testing("NewFieldManagedObjectTracker")).Call(jen.Id("scheme"), jen.Id("codecs").Dot("UniversalDecoder").Call(),
			jen.Qual(t.ApplyPath(""), "NewTypeConverter").Call(jen.Id("scheme")))}, trackerClientset()...)...)
	f.Var().Defs(
		jen.Id("_").Qual(t.ClientsetPath(), "Interface").Op("=").Op("&").Id("Clientset").Values(),
		jen.Id("_").Add(testing("FakeClient")).Op("=").Op("&").Id("Clientset").Values(),
	)
	for _, gv := range t.GroupVersions {
		f.Commentf("%s retrieves the fake %sClient.", gv.GoName(), gv.GoName())
		f.Func().Params(recv()).Id(gv.GoName()).Params().Qual(t.TypedPath(gv), gv.GoName()+"Interface").Block(
			jen.Return(jen.Op("&").Qual(t.TypedPath(gv)+"/fake", "Fake"+gv.GoName()).Values(jen.Dict{jen.Id("Fake"): jen.Op("&").Id("c").Dot("Fake")})))
	}
	return f
}

// trackerClientset is the part NewSimpleClientset and NewClientset share after creating the
// tracker o: add the objects, wire the reactors, return the clientset.
func trackerClientset() []jen.Code {
	testing := func(n string) *jen.Statement { return jen.Qual(clientlayout.TestingPkg, n) }
	return []jen.Code{
		jen.For(jen.List(jen.Id("_"), jen.Id("obj")).Op(":=").Range().Id("objects")).Block(
			jen.If(jen.Err().Op(":=").Id("o").Dot("Add").Call(jen.Id("obj")), jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err()))),
		jen.Id("cs").Op(":=").Op("&").Id("Clientset").Values(jen.Dict{jen.Id("tracker"): jen.Id("o")}),
		jen.Id("cs").Dot("discovery").Op("=").Op("&").Qual(clientlayout.DiscoveryPkg+"/fake", "FakeDiscovery").Values(jen.Dict{jen.Id("Fake"): jen.Op("&").Id("cs").Dot("Fake")}),
		jen.Id("cs").Dot("AddReactor").Call(jen.Lit("*"), jen.Lit("*"), testing("ObjectReaction").Call(jen.Id("o"))),
		jen.Id("cs").Dot("AddWatchReactor").Call(jen.Lit("*"), jen.Func().Params(jen.Id("action").Add(testing("Action"))).
			Params(jen.Id("handled").Bool(), jen.Id("ret").Qual(clientlayout.WatchPkg, "Interface"), jen.Err().Error()).Block(
			jen.Var().Id("opts").Add(meta("ListOptions")),
			jen.If(jen.List(jen.Id("watchAction"), jen.Id("ok")).Op(":=").Id("action").Assert(testing("WatchActionImpl")), jen.Id("ok")).Block(
				jen.Id("opts").Op("=").Id("watchAction").Dot("ListOptions")),
			jen.Id("gvr").Op(":=").Id("action").Dot("GetResource").Call(),
			jen.Id("ns").Op(":=").Id("action").Dot("GetNamespace").Call(),
			jen.List(jen.Id("w"), jen.Err()).Op(":=").Id("o").Dot("Watch").Call(jen.Id("gvr"), jen.Id("ns"), jen.Id("opts")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.False(), jen.Nil(), jen.Err())),
			jen.Return(jen.True(), jen.Id("w"), jen.Nil()),
		)),
		jen.Return(jen.Id("cs")),
	}
}

// fakeRegisterFile is fake/register.go: the fake clientset's own scheme and codecs.
func fakeRegisterFile(t *clientlayout.Tree, names map[string]string) *jen.File {
	f := newFile(t.ClientsetPath()+"/fake", "fake", names)
	f.Var().Id("scheme").Op("=").Qual(clientlayout.RuntimePkg, "NewScheme").Call()
	f.Var().Id("codecs").Op("=").Qual(serializerPkg, "NewCodecFactory").Call(jen.Id("scheme"))
	schemeRegistration(f, t, "scheme")
	return f
}

// fakeTypedFiles adds the fake typed client package of gv.
func fakeTypedFiles(fs *emit.Files, t *clientlayout.Tree, gv clientlayout.GroupVersion, names map[string]string) {
	path, dir := t.TypedPath(gv)+"/fake", filepath.Join(t.TypedDir(gv), "fake")
	fs.Add(filepath.Join(dir, "doc.go"), newFile(path, "fake", names), "Package fake has the fake typed clients of "+gv.DisplayName()+".")
	f := newFile(path, "fake", names)
	name := "Fake" + gv.GoName()
	f.Commentf("%s implements %sInterface on client-go's testing.Fake.", name, gv.GoName())
	f.Type().Id(name).Struct(jen.Op("*").Qual(clientlayout.TestingPkg, "Fake"))
	kindAccessors(f, t, gv, jen.Id("c").Op("*").Id(name), "newFake", "fake client", func(k *model.Kind) jen.Code {
		return jen.Qual(t.TypedPath(gv), k.Name+"Interface")
	})
	f.Comment("RESTClient returns a nil *rest.RESTClient: a fake client has no REST client.")
	f.Func().Params(jen.Id("c").Op("*").Id(name)).Id("RESTClient").Params().Qual(clientlayout.RestPkg, "Interface").Block(
		jen.Var().Id("ret").Op("*").Qual(clientlayout.RestPkg, "RESTClient"),
		jen.Return(jen.Id("ret")),
	)
	fs.Add(filepath.Join(dir, "fake_"+gv.Group.ClientPackageName+"_client.go"), f, "")
	for _, k := range gv.Kinds {
		fs.Add(filepath.Join(dir, "fake_"+clientlayout.FileName(k)), fakeKindFile(kindClient{t: t, gv: gv, k: k}, names), "")
	}
}

// fakeKindFile is fake_<kind>.go: the fake client of one kind on gentype's fake clients.
func fakeKindFile(kc kindClient, names map[string]string) *jen.File {
	path := kc.t.TypedPath(kc.gv) + "/fake"
	f := newFile(path, "fake", names)
	k, group := kc.k, "Fake"+kc.gv.GoName()
	typ, ctor := kc.gentype("Fake")
	fakeName := "fake" + kc.plural()
	f.Commentf("%s implements %sInterface.", fakeName, k.Name)
	f.Type().Id(fakeName).Struct(jen.Op("*").Add(typ), jen.Id("Fake").Op("*").Id(group))
	params := []jen.Code{jen.Id("fake").Op("*").Id(group)}
	ns := jen.Lit("")
	if k.Namespaced {
		params, ns = append(params, jen.Id("namespace").String()), jen.Id("namespace")
	}
	sgv := jen.Qual(kc.gv.Version.Package.Path, "SchemeGroupVersion")
	args := []jen.Code{jen.Id("fake").Dot("Fake"), ns, sgv.Clone().Dot("WithResource").Call(jen.Lit(k.Plural)),
		sgv.Clone().Dot("WithKind").Call(jen.Lit(k.Name)),
		jen.Func().Params().Op("*").Add(kc.obj()).Block(jen.Return(jen.Op("&").Add(kc.obj()).Values()))}
	if kc.hasList() {
		list := func() *jen.Statement { return jen.Op("*").Add(kc.list()) }
		items := func() *jen.Statement { return jen.Index().Op("*").Add(kc.obj()) }
		args = append(args,
			jen.Func().Params().Add(list()).Block(jen.Return(jen.Op("&").Add(kc.list()).Values())),
			jen.Func().Params(jen.List(jen.Id("dst"), jen.Id("src")).Add(list())).Block(jen.Id("dst").Dot("ListMeta").Op("=").Id("src").Dot("ListMeta")),
			jen.Func().Params(jen.Id("list").Add(list())).Add(items()).Block(jen.Return(jen.Qual(clientlayout.GentypePkg, "ToPointerSlice").Call(jen.Id("list").Dot("Items")))),
			jen.Func().Params(jen.Id("list").Add(list()), jen.Id("items").Add(items())).Block(
				jen.Id("list").Dot("Items").Op("=").Qual(clientlayout.GentypePkg, "FromPointerSlice").Call(jen.Id("items"))),
		)
	}
	f.Commentf("newFake%s returns the fake client of %s.", kc.plural(), k.Plural)
	f.Func().Id("newFake"+kc.plural()).Params(params...).Qual(kc.t.TypedPath(kc.gv), k.Name+"Interface").Block(
		jen.Return(jen.Op("&").Id(fakeName).Values(ctor.Custom(multiCall, args...), jen.Id("fake"))))
	if !k.Client.NoVerbs {
		for _, m := range k.Client.Methods {
			kc.fakeExtensionMethod(f, m)
		}
	}
	return f
}

// fakeExtensionMethod adds a +genclient:method extension to a fake client: the action it
// records on testing.Fake, as client-gen's fake templates.
func (kc kindClient) fakeExtensionMethod(f *jen.File, m model.ClientMethod) {
	e := extension{kc: kc, m: m}
	testing := func(n string) *jen.Statement { return jen.Qual(clientlayout.TestingPkg, n) }
	ns := kc.k.Namespaced
	action := func(name string, nsArgs []jen.Code, rootArgs []jen.Code) *jen.Statement {
		if ns {
			return testing("New" + name + "ActionWithOptions").Call(nsArgs...)
		}
		return testing("NewRoot" + name + "ActionWithOptions").Call(rootArgs...)
	}
	res, nsID := jen.Id("c").Dot("Resource").Call(), jen.Id("c").Dot("Namespace").Call()
	sub := jen.Lit(m.Subresource)
	in := jen.Id(e.inputName())
	var pre []jen.Code
	var act *jen.Statement
	switch {
	case m.Verb == "get" && e.sub():
		act = action("GetSubresource", []jen.Code{res, nsID, sub, jen.Id(e.nameParam()), jen.Id("options")}, []jen.Code{res, sub, jen.Id(e.nameParam()), jen.Id("options")})
	case m.Verb == "get":
		act = action("Get", []jen.Code{res, nsID, jen.Id("name"), jen.Id("options")}, []jen.Code{res, jen.Id("name"), jen.Id("options")})
	case m.Verb == "list":
		kind := jen.Id("c").Dot("Kind").Call()
		act = action("List", []jen.Code{res, kind, nsID, jen.Id("opts")}, []jen.Code{res, kind, jen.Id("opts")})
	case m.Verb == "create" && e.sub():
		act = action("CreateSubresource", []jen.Code{res, jen.Id(e.nameParam()), sub, nsID, in, jen.Id("opts")}, []jen.Code{res, jen.Id(e.nameParam()), sub, in, jen.Id("opts")})
	case m.Verb == "create":
		act = action("Create", []jen.Code{res, nsID, in, jen.Id("opts")}, []jen.Code{res, in, jen.Id("opts")})
	case m.Verb == "update" && e.sub():
		act = action("UpdateSubresource", []jen.Code{res, sub, nsID, in, jen.Id("opts")}, []jen.Code{res, sub, in, jen.Id("opts")})
	case m.Verb == "update":
		act = action("Update", []jen.Code{res, nsID, in, jen.Id("opts")}, []jen.Code{res, in, jen.Id("opts")})
	case m.Verb == "patch":
		args := []jen.Code{jen.Id("name"), jen.Id("pt"), jen.Id("data"), jen.Id("opts"), jen.Id("subresources").Op("...")}
		act = action("PatchSubresource", append([]jen.Code{res, nsID}, args...), append([]jen.Code{res}, args...))
	case m.Verb == "apply":
		pre, act = kc.fakeApply(e, action, res, nsID)
	}
	body := append(pre,
		jen.Id("emptyResult").Op(":=").Add(e.newResult()),
		jen.List(jen.Id("obj"), jen.Err()).Op(":=").Id("c").Dot("Fake").Dot("Invokes").Call(act, jen.Id("emptyResult")),
		jen.If(jen.Id("obj").Op("==").Nil()).Block(jen.Return(jen.Id("emptyResult"), jen.Err())),
		jen.Return(jen.Id("obj").Assert(e.resultType()), jen.Err()),
	)
	f.Commentf("%s %s, recording the action on the fake.", m.Name, e.describe())
	f.Func().Params(jen.Id("c").Op("*").Id("fake"+kc.plural())).Id(m.Name).Params(append([]jen.Code{ctx()}, e.params()...)...).
		Params(jen.Id("result").Add(e.resultType()), jen.Err().Error()).Block(body...)
}

// fakeApply returns the statements before the action and the action of a fake apply extension:
// the apply configuration marshalled to JSON as an apply patch.
func (kc kindClient) fakeApply(e extension, action func(string, []jen.Code, []jen.Code) *jen.Statement, res, nsID jen.Code) ([]jen.Code, *jen.Statement) {
	in := jen.Id(e.inputName())
	pre := []jen.Code{
		jen.If(in.Clone().Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(e.inputName()+" provided to "+e.m.Name+" must not be nil")))),
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(in.Clone()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
	name := jen.Id(e.nameParam())
	var extra []jen.Code
	if e.sub() {
		extra = []jen.Code{jen.Lit(e.m.Subresource)}
	} else {
		pre = append(pre, jen.Id("name").Op(":=").Add(in.Clone()).Dot("Name"),
			jen.If(jen.Id("name").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(e.inputName()+".Name must be provided to "+e.m.Name)))))
		name = jen.Op("*").Id("name")
	}
	args := append([]jen.Code{name, jen.Qual(clientlayout.TypesPkg, "ApplyPatchType"), jen.Id("data"), jen.Id("opts").Dot("ToPatchOptions").Call()}, extra...)
	return pre, action("PatchSubresource", append([]jen.Code{res, nsID}, args...), append([]jen.Code{res}, args...))
}

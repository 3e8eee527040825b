package clientset

import (
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// kindClient holds what one kind's typed client refers to.
type kindClient struct {
	t  *clientlayout.Tree
	gv clientlayout.GroupVersion
	k  *model.Kind
}

func (kc kindClient) obj() *jen.Statement  { return emit.Qual(kc.k.Type) }
func (kc kindClient) list() *jen.Statement { return emit.Qual(kc.k.List) }

// apply is the kind's apply configuration type.
func (kc kindClient) apply() *jen.Statement {
	return jen.Qual(kc.t.ApplyPath(kc.gv.Segment()), kc.k.Name+"ApplyConfiguration")
}

func (kc kindClient) plural() string        { return kc.k.Client.PluralName }
func (kc kindClient) privatePlural() string { return clientlayout.Private(kc.plural()) }
func (kc kindClient) private() string       { return clientlayout.Private(kc.k.Name) }

// hasList and hasApply choose the gentype client the kind's client embeds.
func (kc kindClient) hasList() bool  { return kc.k.Client.HasMethod("list") }
func (kc kindClient) hasApply() bool { return kc.k.Client.HasMethod("apply") }

// gentype returns the gentype client type (prefix "" or "Fake") and constructor the kind's
// client uses, with its type arguments.
func (kc kindClient) gentype(prefix string) (typ, ctor *jen.Statement) {
	name := prefix + "Client"
	args := []jen.Code{jen.Op("*").Add(kc.obj())}
	if kc.hasList() {
		name += "WithList"
		args = append(args, jen.Op("*").Add(kc.list()))
	}
	if kc.hasApply() {
		if kc.hasList() {
			name += "AndApply"
		} else {
			name += "WithApply"
		}
		args = append(args, jen.Op("*").Add(kc.apply()))
	}
	return jen.Qual(clientlayout.GentypePkg, name).Types(args...), jen.Qual(clientlayout.GentypePkg, "New"+name).Types(args...)
}

// meta names a meta/v1 type; ctx is the context parameter every method takes first.
func meta(name string) *jen.Statement { return jen.Qual(clientlayout.MetaV1Pkg, name) }

func ctx() *jen.Statement { return jen.Id("ctx").Qual("context", "Context") }

// verbMethod returns the interface method of a client-gen verb, with its comment lines.
func (kc kindClient) verbMethod(verb string) (comment string, m *jen.Statement) {
	obj := func() *jen.Statement { return jen.Op("*").Add(kc.obj()) }
	in := func() *jen.Statement { return jen.Id(kc.private()).Op("*").Add(kc.obj()) }
	applyIn := func() *jen.Statement { return jen.Id(kc.private()).Op("*").Add(kc.apply()) }
	named := func() []jen.Code { return []jen.Code{jen.Id("result").Op("*").Add(kc.obj()), jen.Err().Error()} }
	switch verb {
	case "create":
		return "", jen.Id("Create").Params(ctx(), in(), jen.Id("opts").Add(meta("CreateOptions"))).Params(obj(), jen.Error())
	case "update":
		return "", jen.Id("Update").Params(ctx(), in(), jen.Id("opts").Add(meta("UpdateOptions"))).Params(obj(), jen.Error())
	case "updateStatus":
		return "Add a +genclient:noStatus comment above the type to avoid generating UpdateStatus().",
			jen.Id("UpdateStatus").Params(ctx(), in(), jen.Id("opts").Add(meta("UpdateOptions"))).Params(obj(), jen.Error())
	case "delete":
		return "", jen.Id("Delete").Params(ctx(), jen.Id("name").String(), jen.Id("opts").Add(meta("DeleteOptions"))).Error()
	case "deleteCollection":
		return "", jen.Id("DeleteCollection").Params(ctx(), jen.Id("opts").Add(meta("DeleteOptions")), jen.Id("listOpts").Add(meta("ListOptions"))).Error()
	case "get":
		return "", jen.Id("Get").Params(ctx(), jen.Id("name").String(), jen.Id("opts").Add(meta("GetOptions"))).Params(obj(), jen.Error())
	case "list":
		return "", jen.Id("List").Params(ctx(), jen.Id("opts").Add(meta("ListOptions"))).Params(jen.Op("*").Add(kc.list()), jen.Error())
	case "watch":
		return "", jen.Id("Watch").Params(ctx(), jen.Id("opts").Add(meta("ListOptions"))).Params(jen.Qual(clientlayout.WatchPkg, "Interface"), jen.Error())
	case "patch":
		return "", jen.Id("Patch").Params(ctx(), jen.Id("name").String(), jen.Id("pt").Qual(clientlayout.TypesPkg, "PatchType"),
			jen.Id("data").Index().Byte(), jen.Id("opts").Add(meta("PatchOptions")), jen.Id("subresources").Op("...").String()).Params(named()...)
	case "apply":
		return "", jen.Id("Apply").Params(ctx(), applyIn(), jen.Id("opts").Add(meta("ApplyOptions"))).Params(named()...)
	case "applyStatus":
		return "Add a +genclient:noStatus comment above the type to avoid generating ApplyStatus().",
			jen.Id("ApplyStatus").Params(ctx(), applyIn(), jen.Id("opts").Add(meta("ApplyOptions"))).Params(named()...)
	}
	return "", nil
}

// typedFiles adds the typed client package of gv: doc.go, <group>_client.go, a file per kind
// and generated_expansion.go.
func typedFiles(fs *emit.Files, t *clientlayout.Tree, gv clientlayout.GroupVersion, names map[string]string) {
	path, dir := t.TypedPath(gv), t.TypedDir(gv)
	pkg := gv.Version.Name
	doc := newFile(path, pkg, names)
	fs.Add(filepath.Join(dir, "doc.go"), doc, "Package "+pkg+" has the typed clients of "+gv.DisplayName()+".")
	fs.Add(filepath.Join(dir, gv.Group.ClientPackageName+"_client.go"), groupClientFile(t, gv, names), "")
	exp := newFile(path, pkg, names)
	for _, k := range gv.Kinds {
		kc := kindClient{t: t, gv: gv, k: k}
		fs.Add(filepath.Join(dir, clientlayout.FileName(k)), kindClientFile(kc, names), "")
		exp.Commentf("%sExpansion has the methods added to %sInterface by hand (none: it is generated empty).", k.Name, k.Name)
		exp.Type().Id(k.Name + "Expansion").Interface()
	}
	fs.Add(filepath.Join(dir, "generated_expansion.go"), exp, "")
}

// groupClientFile is <group>_client.go: the group version's Interface and Client.
func groupClientFile(t *clientlayout.Tree, gv clientlayout.GroupVersion, names map[string]string) *jen.File {
	f := newFile(t.TypedPath(gv), gv.Version.Name, names)
	name := gv.GoName()
	methods := []jen.Code{jen.Id("RESTClient").Params().Qual(clientlayout.RestPkg, "Interface")}
	for _, k := range gv.Kinds {
		methods = append(methods, jen.Id(k.Client.PluralName+"Getter"))
	}
	f.Commentf("%sInterface has a method per kind returning its typed client, and the REST client they share.", name)
	f.Type().Id(name + "Interface").Interface(methods...)
	f.Commentf("%sClient is used to interact with features provided by the %s group.", name, gv.Group.DisplayName())
	f.Type().Id(name + "Client").Struct(jen.Id("restClient").Qual(clientlayout.RestPkg, "Interface"))
	kindAccessors(f, t, gv, jen.Id("c").Op("*").Id(name+"Client"), "new", "typed client", func(k *model.Kind) jen.Code {
		return jen.Id(k.Name + "Interface")
	})
	groupConstructors(f, t, gv)
	return f
}

// inNamespace is " in namespace" for a namespaced kind, "" otherwise.
func inNamespace(k *model.Kind) string {
	if k.Namespaced {
		return " in namespace"
	}
	return ""
}

// groupConstructors adds NewForConfig, NewForConfigAndClient, NewForConfigOrDie, New,
// setConfigDefaults and RESTClient of a group version client.
func groupConstructors(f *jen.File, t *clientlayout.Tree, gv clientlayout.GroupVersion) {
	name := gv.GoName() + "Client"
	rest := func(n string) *jen.Statement { return jen.Qual(clientlayout.RestPkg, n) }
	cfg := jen.Id("c").Op("*").Add(rest("Config"))
	ret := []jen.Code{jen.Op("*").Id(name), jen.Error()}
	f.Commentf("NewForConfig creates a new %s for the given config, with an HTTP client of its own (rest.HTTPClientFor).", name)
	f.Func().Id("NewForConfig").Params(cfg.Clone()).Params(ret...).Block(
		jen.Id("config").Op(":=").Op("*").Id("c"),
		jen.Id("setConfigDefaults").Call(jen.Op("&").Id("config")),
		jen.List(jen.Id("httpClient"), jen.Err()).Op(":=").Add(rest("HTTPClientFor")).Call(jen.Op("&").Id("config")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("NewForConfigAndClient").Call(jen.Op("&").Id("config"), jen.Id("httpClient"))),
	)
	f.Commentf("NewForConfigAndClient creates a new %s for the given config and HTTP client, which takes", name)
	f.Comment("precedence over the config's transport.")
	f.Func().Id("NewForConfigAndClient").Params(cfg.Clone(), jen.Id("h").Op("*").Qual("net/http", "Client")).Params(ret...).Block(
		jen.Id("config").Op(":=").Op("*").Id("c"),
		jen.Id("setConfigDefaults").Call(jen.Op("&").Id("config")),
		jen.List(jen.Id("client"), jen.Err()).Op(":=").Add(rest("RESTClientForConfigAndClient")).Call(jen.Op("&").Id("config"), jen.Id("h")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(name).Values(jen.Id("client")), jen.Nil()),
	)
	f.Commentf("NewForConfigOrDie creates a new %s for the given config and panics if the config is invalid.", name)
	f.Func().Id("NewForConfigOrDie").Params(cfg.Clone()).Op("*").Id(name).Block(
		jen.List(jen.Id("client"), jen.Err()).Op(":=").Id("NewForConfig").Call(jen.Id("c")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err())),
		jen.Return(jen.Id("client")),
	)
	f.Commentf("New creates a new %s for the given RESTClient.", name)
	f.Func().Id("New").Params(jen.Id("c").Add(rest("Interface"))).Op("*").Id(name).Block(jen.Return(jen.Op("&").Id(name).Values(jen.Id("c"))))
	scheme := t.ClientsetPath() + "/scheme"
	f.Comment("setConfigDefaults points config at the group version with the clientset's codecs.")
	f.Func().Id("setConfigDefaults").Params(jen.Id("config").Op("*").Add(rest("Config"))).Block(
		jen.Id("gv").Op(":=").Qual(gv.Version.Package.Path, "SchemeGroupVersion"),
		jen.Id("config").Dot("GroupVersion").Op("=").Op("&").Id("gv"),
		jen.Id("config").Dot("APIPath").Op("=").Lit(apiPath(gv.Group)),
		jen.Id("config").Dot("NegotiatedSerializer").Op("=").Add(rest("CodecFactoryForGeneratedClient")).
			Call(jen.Qual(scheme, "Scheme"), jen.Qual(scheme, "Codecs")).Dot("WithoutConversion").Call(),
		jen.If(jen.Id("config").Dot("UserAgent").Op("==").Lit("")).Block(
			jen.Id("config").Dot("UserAgent").Op("=").Add(rest("DefaultKubernetesUserAgent")).Call()),
	)
	f.Comment("RESTClient returns the REST client the typed clients of the group version share; nil on a nil client.")
	f.Func().Params(jen.Id("c").Op("*").Id(name)).Id("RESTClient").Params().Add(rest("Interface")).Block(
		jen.If(jen.Id("c").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("c").Dot("restClient")),
	)
}

// apiPath is "/api" for the legacy core group, "/apis" otherwise.
func apiPath(g *model.Group) string {
	if g.Name == "" {
		return "/api"
	}
	return "/apis"
}

// kindClientFile is <kind>.go: the kind's Getter and Interface, and the gentype-based client
// with its extension methods.
func kindClientFile(kc kindClient, names map[string]string) *jen.File {
	f := newFile(kc.t.TypedPath(kc.gv), kc.gv.Version.Name, names)
	k := kc.k
	getterParams := []jen.Code{}
	if k.Namespaced {
		getterParams = append(getterParams, jen.Id("namespace").String())
	}
	f.Commentf("%sGetter has a method to return a %sInterface.", kc.plural(), k.Name)
	f.Comment("A group's client should implement this interface.")
	f.Type().Id(kc.plural() + "Getter").Interface(jen.Id(kc.plural()).Params(getterParams...).Id(k.Name + "Interface"))
	var methods []jen.Code
	if !k.Client.NoVerbs {
		for _, verb := range k.Client.MethodVerbs() {
			comment, m := kc.verbMethod(verb)
			if comment != "" {
				methods = append(methods, jen.Comment(comment))
			}
			methods = append(methods, m)
		}
		for _, m := range k.Client.Methods {
			methods = append(methods, kc.extensionSignature(m))
		}
	}
	methods = append(methods, jen.Id(k.Name+"Expansion"))
	f.Commentf("%sInterface has methods to work with %s resources.", k.Name, k.Name)
	f.Type().Id(k.Name + "Interface").Interface(methods...)

	typ, ctor := kc.gentype("")
	f.Commentf("%s implements %sInterface.", kc.privatePlural(), k.Name)
	f.Type().Id(kc.privatePlural()).Struct(jen.Op("*").Add(typ))
	params := []jen.Code{jen.Id("c").Op("*").Id(kc.gv.GoName() + "Client")}
	ns := jen.Lit("")
	if k.Namespaced {
		params, ns = append(params, jen.Id("namespace").String()), jen.Id("namespace")
	}
	args := []jen.Code{jen.Lit(k.Plural), jen.Id("c").Dot("RESTClient").Call(), jen.Qual(kc.t.ClientsetPath()+"/scheme", "ParameterCodec"), ns,
		jen.Func().Params().Op("*").Add(kc.obj()).Block(jen.Return(jen.Op("&").Add(kc.obj()).Values()))}
	if kc.hasList() {
		args = append(args, jen.Func().Params().Op("*").Add(kc.list()).Block(jen.Return(jen.Op("&").Add(kc.list()).Values())))
	}
	f.Commentf("new%s returns the typed client of %s.", kc.plural(), k.Plural)
	f.Func().Id("new" + kc.plural()).Params(params...).Op("*").Id(kc.privatePlural()).Block(
		jen.Return(jen.Op("&").Id(kc.privatePlural()).Values(ctor.Custom(multiCall, args...))))
	if !k.Client.NoVerbs {
		for _, m := range k.Client.Methods {
			kc.extensionMethod(f, m)
		}
	}
	return f
}

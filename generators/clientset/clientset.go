package clientset

import (
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths the clientset refers to besides clientlayout's.
const (
	flowcontrolPkg = "k8s.io/client-go/util/flowcontrol"
	serializerPkg  = "k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntimePkg = "k8s.io/apimachinery/pkg/util/runtime"
)

// New returns the clientset generator. Generate returns the files of every tree's
// clientset/versioned; it has no errors of its own (the loader checked the tags).
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "clientset".
func (generator) Name() string { return "clientset" }

// Generate emits the clientset of every tree of api.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	fs := &emit.Files{}
	for _, t := range clientlayout.Trees(api) {
		names := t.ImportNames()
		dir := t.ClientsetDir()
		fs.Add(filepath.Join(dir, "clientset.go"), clientsetFile(t, names),
			"Package versioned is the typed clientset of "+groupList(t)+".")
		fs.Add(filepath.Join(dir, "scheme", "register.go"), schemeFile(t, names), "")
		fs.Add(filepath.Join(dir, "scheme", "doc.go"), newFile(t.ClientsetPath()+"/scheme", "scheme", names),
			"Package scheme holds the scheme of the clientset's types, as client-go's kubernetes/scheme.")
		fs.Add(filepath.Join(dir, "fake", "clientset_generated.go"), fakeClientsetFile(t, names), "")
		fs.Add(filepath.Join(dir, "fake", "register.go"), fakeRegisterFile(t, names), "")
		fs.Add(filepath.Join(dir, "fake", "doc.go"), newFile(t.ClientsetPath()+"/fake", "fake", names),
			"Package fake is a fake clientset backed by client-go's object tracker, for unit tests.")
		for _, gv := range t.GroupVersions {
			typedFiles(fs, t, gv, names)
			fakeTypedFiles(fs, t, gv, names)
		}
	}
	return fs.Result()
}

// groupList names the tree's groups for a doc comment: "the db.example.com API".
func groupList(t *clientlayout.Tree) string {
	s := ""
	groups := t.Groups()
	for i, g := range groups {
		switch {
		case i == 0:
		case i == len(groups)-1:
			s += " and "
		default:
			s += ", "
		}
		s += g[0].Group.DisplayName()
	}
	if len(groups) == 1 {
		return "the " + s + " API"
	}
	return "the " + s + " APIs"
}

// newFile starts a file of package pkgName at pkgPath with the tree's import names.
func newFile(pkgPath, pkgName string, names map[string]string) *jen.File {
	return emit.NewFile(pkgPath, pkgName, names)
}

// clientsetFile is clientset.go: Interface, Clientset and its constructors, as client-gen's.
func clientsetFile(t *clientlayout.Tree, names map[string]string) *jen.File {
	f := newFile(t.ClientsetPath(), "versioned", names)
	methods := []jen.Code{jen.Id("Discovery").Params().Qual(clientlayout.DiscoveryPkg, "DiscoveryInterfaces")}
	fields := []jen.Code{jen.Op("*").Qual(clientlayout.DiscoveryPkg, "DiscoveryClient")}
	for _, gv := range t.GroupVersions {
		typed := t.TypedPath(gv)
		methods = append(methods, jen.Id(gv.GoName()).Params().Qual(typed, gv.GoName()+"Interface"))
		fields = append(fields, jen.Id(clientlayout.Private(gv.GoName())).Op("*").Qual(typed, gv.GoName()+"Client"))
	}
	f.Comment("Interface is the clientset: discovery and a typed client per group version.")
	f.Type().Id("Interface").Interface(methods...)
	f.Comment("Clientset contains the clients for groups; it implements Interface.")
	f.Type().Id("Clientset").Struct(fields...)
	for _, gv := range t.GroupVersions {
		f.Commentf("%s retrieves the %sClient.", gv.GoName(), gv.GoName())
		f.Func().Params(jen.Id("c").Op("*").Id("Clientset")).Id(gv.GoName()).Params().Qual(t.TypedPath(gv), gv.GoName()+"Interface").
			Block(jen.Return(jen.Id("c").Dot(clientlayout.Private(gv.GoName()))))
	}
	f.Comment("Discovery retrieves the DiscoveryClient; nil on a nil Clientset.")
	f.Func().Params(jen.Id("c").Op("*").Id("Clientset")).Id("Discovery").Params().Qual(clientlayout.DiscoveryPkg, "DiscoveryInterfaces").Block(
		jen.If(jen.Id("c").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("c").Dot("DiscoveryClient")),
	)
	clientsetConstructors(f, t)
	return f
}

// clientsetConstructors adds NewForConfig, NewForConfigAndClient, NewForConfigOrDie and New.
func clientsetConstructors(f *jen.File, t *clientlayout.Tree) {
	rest := func(name string) *jen.Statement { return jen.Qual(clientlayout.RestPkg, name) }
	cfg := jen.Id("c").Op("*").Add(rest("Config"))
	ret := []jen.Code{jen.Op("*").Id("Clientset"), jen.Error()}
	f.Comment("NewForConfig creates a new Clientset for the given config, sharing one HTTP client")
	f.Comment("(rest.HTTPClientFor) between the group clients; see NewForConfigAndClient.")
	f.Func().Id("NewForConfig").Params(cfg).Params(ret...).Block(
		jen.Id("configShallowCopy").Op(":=").Op("*").Id("c"),
		jen.If(jen.Id("configShallowCopy").Dot("UserAgent").Op("==").Lit("")).Block(
			jen.Id("configShallowCopy").Dot("UserAgent").Op("=").Add(rest("DefaultKubernetesUserAgent")).Call()),
		jen.List(jen.Id("httpClient"), jen.Err()).Op(":=").Add(rest("HTTPClientFor")).Call(jen.Op("&").Id("configShallowCopy")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("NewForConfigAndClient").Call(jen.Op("&").Id("configShallowCopy"), jen.Id("httpClient"))),
	)
	body := []jen.Code{
		jen.Id("configShallowCopy").Op(":=").Op("*").Id("c"),
		jen.If(jen.Id("configShallowCopy").Dot("RateLimiter").Op("==").Nil().Op("&&").Id("configShallowCopy").Dot("QPS").Op(">").Lit(0)).Block(
			jen.If(jen.Id("configShallowCopy").Dot("Burst").Op("<=").Lit(0)).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")))),
			jen.Id("configShallowCopy").Dot("RateLimiter").Op("=").Qual(flowcontrolPkg, "NewTokenBucketRateLimiter").Call(
				jen.Id("configShallowCopy").Dot("QPS"), jen.Id("configShallowCopy").Dot("Burst")),
		),
		jen.Var().Id("cs").Id("Clientset"),
		jen.Var().Err().Error(),
	}
	for _, gv := range t.GroupVersions {
		body = append(body,
			jen.List(jen.Id("cs").Dot(clientlayout.Private(gv.GoName())), jen.Err()).Op("=").Qual(t.TypedPath(gv), "NewForConfigAndClient").
				Call(jen.Op("&").Id("configShallowCopy"), jen.Id("httpClient")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	body = append(body,
		jen.List(jen.Id("cs").Dot("DiscoveryClient"), jen.Err()).Op("=").Qual(clientlayout.DiscoveryPkg, "NewDiscoveryClientForConfigAndClient").
			Call(jen.Op("&").Id("configShallowCopy"), jen.Id("httpClient")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("cs"), jen.Nil()))
	f.Comment("NewForConfigAndClient creates a new Clientset for the given config and HTTP client, which takes")
	f.Comment("precedence over the config's transport. A config without RateLimiter and with QPS > 0 gets a token")
	f.Comment("bucket limiter; its Burst must then be > 0, else the error says so.")
	f.Func().Id("NewForConfigAndClient").Params(cfg, jen.Id("httpClient").Op("*").Qual("net/http", "Client")).Params(ret...).Block(body...)
	f.Comment("NewForConfigOrDie creates a new Clientset for the given config and panics if the config is invalid.")
	f.Func().Id("NewForConfigOrDie").Params(cfg).Op("*").Id("Clientset").Block(
		jen.List(jen.Id("cs"), jen.Err()).Op(":=").Id("NewForConfig").Call(jen.Id("c")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err())),
		jen.Return(jen.Id("cs")),
	)
	newBody := []jen.Code{jen.Var().Id("cs").Id("Clientset")}
	for _, gv := range t.GroupVersions {
		newBody = append(newBody, jen.Id("cs").Dot(clientlayout.Private(gv.GoName())).Op("=").Qual(t.TypedPath(gv), "New").Call(jen.Id("c")))
	}
	newBody = append(newBody,
		jen.Id("cs").Dot("DiscoveryClient").Op("=").Qual(clientlayout.DiscoveryPkg, "NewDiscoveryClient").Call(jen.Id("c")),
		jen.Return(jen.Op("&").Id("cs")))
	f.Comment("New creates a new Clientset for the given RESTClient.")
	f.Func().Id("New").Params(jen.Id("c").Add(rest("Interface"))).Op("*").Id("Clientset").Block(newBody...)
}

// schemeFile is scheme/register.go: Scheme, Codecs, ParameterCodec and AddToScheme of every
// version of the clientset, as client-gen's.
func schemeFile(t *clientlayout.Tree, names map[string]string) *jen.File {
	f := newFile(t.ClientsetPath()+"/scheme", "scheme", names)
	f.Comment("Scheme knows the clientset's types and meta/v1's.")
	f.Var().Id("Scheme").Op("=").Qual(clientlayout.RuntimePkg, "NewScheme").Call()
	f.Comment("Codecs encodes and decodes the clientset's types.")
	f.Var().Id("Codecs").Op("=").Qual(serializerPkg, "NewCodecFactory").Call(jen.Id("Scheme"))
	f.Comment("ParameterCodec converts the clientset's option types to and from query parameters.")
	f.Var().Id("ParameterCodec").Op("=").Qual(clientlayout.RuntimePkg, "NewParameterCodec").Call(jen.Id("Scheme"))
	schemeRegistration(f, t, "Scheme")
	return f
}

// schemeRegistration declares localSchemeBuilder with every group version's AddToScheme,
// AddToScheme, and the init adding meta/v1's options and the clientset's types to the scheme
// variable called scheme.
func schemeRegistration(f *jen.File, t *clientlayout.Tree, scheme string) {
	var adds []jen.Code
	for _, gv := range t.GroupVersions {
		adds = append(adds, jen.Qual(gv.Version.Package.Path, "AddToScheme"))
	}
	f.Var().Id("localSchemeBuilder").Op("=").Qual(clientlayout.RuntimePkg, "SchemeBuilder").Custom(multi, adds...)
	f.Comment("AddToScheme adds all types of this clientset into the given scheme, so that clientsets compose")
	f.Comment("(after AddToScheme into client-go's kubernetes/scheme, RawExtensions holding these types serialize).")
	f.Var().Id("AddToScheme").Op("=").Id("localSchemeBuilder").Dot("AddToScheme")
	f.Func().Id("init").Params().Block(
		jen.Qual(clientlayout.MetaV1Pkg, "AddToGroupVersion").Call(jen.Id(scheme), jen.Qual(clientlayout.SchemaPkg, "GroupVersion").Values(jen.Dict{jen.Id("Version"): jen.Lit("v1")})),
		jen.Qual(utilruntimePkg, "Must").Call(jen.Id("AddToScheme").Call(jen.Id(scheme))),
	)
}

// kindAccessors declares, on the group version client recv (typed or fake), the method of
// every kind returning its client from the constructor named prefix+<Plural>; what names the
// client in the doc comments ("typed client", "fake client").
func kindAccessors(f *jen.File, t *clientlayout.Tree, gv clientlayout.GroupVersion, recv jen.Code, prefix, what string, ret func(k *model.Kind) jen.Code) {
	for _, k := range gv.Kinds {
		kc := kindClient{t: t, gv: gv, k: k}
		params, args := []jen.Code{}, []jen.Code{jen.Id("c")}
		if k.Namespaced {
			params, args = append(params, jen.Id("namespace").String()), append(args, jen.Id("namespace"))
		}
		f.Commentf("%s returns the %s of %s%s.", kc.plural(), what, k.Plural, inNamespace(k))
		f.Func().Params(recv).Id(kc.plural()).Params(params...).Add(ret(k)).
			Block(jen.Return(jen.Id(prefix + kc.plural()).Call(args...)))
	}
}

// multi renders a composite literal one element per line; multiCall a call one argument per line.
var (
	multi     = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	multiCall = jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}
)

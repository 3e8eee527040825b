package install

import (
	"fmt"
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths generated install code refers to.
const (
	runtimePkg     = "k8s.io/apimachinery/pkg/runtime"
	schemaPkg      = "k8s.io/apimachinery/pkg/runtime/schema"
	utilruntimePkg = "k8s.io/apimachinery/pkg/util/runtime"
	equalityPkg    = "k8s.io/apimachinery/pkg/api/equality"
	fieldPkg       = "k8s.io/apimachinery/pkg/util/validation/field"
	metav1Pkg      = "k8s.io/apimachinery/pkg/apis/meta/v1"
	autoscalingPkg = "k8s.io/api/autoscaling/v1"
	registryPkg    = emit.RuntimePath + "/registry"
	openapiPkg     = emit.RuntimePath + "/openapi"
	restPkg        = emit.RuntimePath + "/rest"
	tablePkg       = emit.RuntimePath + "/tableconvertor"
	validationPkg  = emit.RuntimePath + "/validation"
)

// Import paths of field management: the reset fields generated strategies declare.
const (
	fieldpathPkg    = "sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	fieldmanagerPkg = emit.RuntimePath + "/fieldmanager"
)

// The files written in every group's install package.
const (
	installFile  = "zz_generated.install.go"
	strategyFile = "zz_generated.strategy.go"
)

// New returns the install generator. Generate returns zz_generated.install.go and
// zz_generated.strategy.go per group. Errors: a model.Diagnostics naming every kind the hub
// package has no type (or list type) for.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "install".
func (generator) Name() string { return "install" }

// Generate emits the install and strategy files of every group.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		rs, ds := resources(g)
		if len(ds) > 0 {
			fs.Report(ds...)
			continue
		}
		fs.Add(filepath.Join(g.InstallDir, installFile), installFileFor(g, rs), "")
		fs.Add(filepath.Join(g.InstallDir, strategyFile), strategyFileFor(g, rs), "")
	}
	return fs.Result()
}

// newFile returns a file of g's install package importing the group's packages by name.
func newFile(g *model.Group) *jen.File {
	names := map[string]string{g.Hub.Path: g.Hub.Name, autoscalingPkg: "autoscalingv1"}
	for _, v := range g.Versions {
		names[v.Package.Path] = v.Package.Name
	}
	if g.Validation != nil {
		names[g.Validation.Path] = g.Hub.Name + g.Validation.Name
	}
	return emit.NewFile(g.InstallPath, "install", names)
}

// installFileFor renders Install, NewAPIGroupInfo and one store builder per resource.
func installFileFor(g *model.Group, rs []*resource) *jen.File {
	f := newFile(g)
	if !g.AdoptsInstall() {
		installFunc(f, g, rs)
		f.Line()
	}
	apiGroupInfoFunc(f, g, rs)
	for _, r := range rs {
		f.Line()
		storeFunc(f, g, r)
	}
	return f
}

// groupVersion is <version package>.SchemeGroupVersion, declared by the register generator.
func groupVersion(v *model.Version) *jen.Statement {
	return jen.Qual(v.Package.Path, "SchemeGroupVersion")
}

// installFunc emits Install.
func installFunc(f *jen.File, g *model.Group, rs []*resource) {
	var body []jen.Code
	must := func(c jen.Code) { body = append(body, jen.Qual(utilruntimePkg, "Must").Call(c)) }
	if !g.HubIsVersion {
		must(jen.Qual(g.Hub.Path, "AddToScheme").Call(jen.Id("scheme")))
	}
	priorities := make([]jen.Code, len(g.Versions))
	for i, v := range g.Versions {
		must(jen.Qual(v.Package.Path, "AddToScheme").Call(jen.Id("scheme")))
		priorities[i] = groupVersion(v)
	}
	scaled := anyScale(rs)
	if scaled {
		must(jen.Qual(autoscalingPkg, "AddToScheme").Call(jen.Id("scheme")))
	}
	must(jen.Id("scheme").Dot("SetVersionPriority").Call(priorities...))
	preferred := ""
	if len(g.Versions) > 0 {
		preferred = ", preferring " + g.Versions[0].Name
	}
	f.Commentf("Install registers the %s's internal and versioned types, conversions and defaulters with scheme%s.", groupDescription(g.Name), preferred)
	if scaled {
		f.Comment("It also registers autoscaling/v1, whose Scale the scale subresources serve.")
	}
	f.Comment("It panics only on a programming error in the generated registration code, as Kubernetes' install packages do.")
	f.Func().Id("Install").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Block(body...)
}

// apiGroupInfoFunc emits NewAPIGroupInfo.
func apiGroupInfoFunc(f *jen.File, g *model.Group, rs []*resource) {
	body := []jen.Code{jen.Id("Install").Call(jen.Id("scheme"))}
	if g.AdoptsInstall() {
		body = append(body, adoptedInstallChecks(g, rs)...)
	}
	for _, r := range rs {
		if r.userREST() {
			continue // built after the others (userRESTServe)
		}
		if r.kind.CreateOnly {
			body = append(body, jen.Id(r.storeVar()).Op(":=").Id(r.storeFunc()).Call(jen.Id("scheme")))
			continue
		}
		body = append(body,
			jen.List(jen.Id(r.storeVar()), jen.Err()).Op(":=").Id(r.storeFunc()).Call(jen.Id("scheme"), jen.Id("storage")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		if sc := r.scale; sc != nil {
			body = append(body,
				jen.List(jen.Id(r.scaleVar()), jen.Err()).Op(":=").Qual(registryPkg, "NewScaleStore").Call(
					jen.Id(r.storeVar()), scaleSpec(sc)),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(),
					jen.Qual("fmt", "Errorf").Call(jen.Lit("cannot serve "+qualifiedResource(r.kind.Plural, g.Name)+"/scale: %w"), jen.Err()))))
		}
	}
	definitions := jen.Id("GetOpenAPIDefinitions")
	if anyScale(rs) {
		definitions = jen.Qual(openapiPkg, "MergeDefinitions").Call(jen.Id("GetOpenAPIDefinitions"),
			jen.Qual(registryPkg, "ScaleOpenAPIDefinitions"))
	}
	served := servedVersions(g)
	priorities := make([]jen.Code, len(served))
	versions := make([]jen.Code, len(served))
	for i, v := range served {
		priorities[i] = groupVersion(v)
		versions[i] = jen.Lit(v.Name).Op(":").Custom(multi, versionStorage(v, rs)...)
	}
	fields := []jen.Code{
		jen.Id("Group").Op(":").Lit(g.Name),
		jen.Id("PrioritizedVersions").Op(":").Index().Qual(schemaPkg, "GroupVersion").Values(priorities...),
		jen.Id("VersionedResourcesStorageMap").Op(":").Map(jen.String()).Map(jen.String()).Qual(restPkg, "Storage").Custom(multi, versions...),
		jen.Id("Scheme").Op(":").Id("scheme"),
		jen.Id("OpenAPIDefinitions").Op(":").Add(definitions),
	}
	for _, f := range []jen.Code{verbsField(g, rs), deprecationField(g, rs)} {
		if f != nil {
			fields = append(fields, f)
		}
	}
	if anyUserREST(rs) {
		body = append(body, jen.Id("info").Op(":=").Op("&").Qual(registryPkg, "APIGroupInfo").Custom(multi, fields...))
		body = append(body, userRESTServe(g, rs)...)
		body = append(body, jen.Return(jen.Id("info"), jen.Nil()))
	} else {
		body = append(body, jen.Return(jen.Op("&").Qual(registryPkg, "APIGroupInfo").Custom(multi, fields...), jen.Nil()))
	}
	if g.AdoptsInstall() {
		f.Comment("NewAPIGroupInfo installs the group into scheme with the hand-written Install of this package, then")
		f.Comment("checks that it registered every served version, and builds one registry.Store per resource over storage,")
	} else {
		f.Comment("NewAPIGroupInfo installs the group into scheme and builds one registry.Store per resource over storage,")
	}
	f.Comment("serving each resource (and its status and scale subresources) in every version that declares its kind")
	f.Comment("and does not mark it +kubebuilder:unservedversion, with the verbs its +genclient tags allow and the")
	f.Comment("deprecation warning of +kubebuilder:deprecatedversion.")
	if anyUserREST(rs) {
		f.Comment("A kind whose REST the user writes (+apigen:storage=rest) is served last, by the REST its hand-written")
		f.Comment("new<Kind>REST returns given the other resources, with only the verbs that REST implements.")
	}
	if anyCreateOnly(rs) {
		f.Comment("A create-only kind (+genclient:onlyVerbs=create) gets a registry.CreateOnlyStore, never stored, whose Respond the server sets.")
	}
	if g.AdoptsInstall() {
		f.Comment("Errors: a served version the hand-written Install did not register; the first resource whose storage,")
		f.Comment("table convertor or scale subresource cannot be created.")
	} else {
		if anyUserREST(rs) {
			f.Comment("Errors: the first resource whose storage, REST, table convertor or scale subresource cannot be created.")
		} else {
			f.Comment("Errors: the first resource whose storage, table convertor or scale subresource cannot be created.")
		}
	}
	f.Func().Id("NewAPIGroupInfo").Params(
		jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme"),
		jen.Id("storage").Qual(registryPkg, "StorageFactory"),
	).Params(jen.Op("*").Qual(registryPkg, "APIGroupInfo"), jen.Error()).Block(body...)
}

// adoptedInstallChecks follows a call of the hand-written Install (model.Group.AdoptsInstall,
// as sample-apiserver's install.go): autoscaling/v1 registered when a kind has /scale (a
// generated Install registers it itself), then an error for each served version Install did
// not register, naming the AddToScheme call to add to it.
func adoptedInstallChecks(g *model.Group, rs []*resource) []jen.Code {
	var body []jen.Code
	if anyScale(rs) {
		body = append(body, jen.Qual(utilruntimePkg, "Must").Call(jen.Qual(autoscalingPkg, "AddToScheme").Call(jen.Id("scheme"))))
	}
	for _, v := range servedVersions(g) {
		msg := fmt.Sprintf("the hand-written Install of %s does not register %s/%s: add utilruntime.Must(%s.AddToScheme(scheme)) to it",
			g.InstallPath, g.Name, v.Name, v.Package.Name)
		body = append(body, jen.If(jen.Op("!").Id("scheme").Dot("IsVersionRegistered").Call(groupVersion(v))).Block(
			jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit(msg)))))
	}
	return body
}

// multi renders a composite literal one element per line.
var multi = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// versionStorage lists the resource paths version v serves, sorted by path.
func versionStorage(v *model.Version, rs []*resource) []jen.Code {
	var items []jen.Code
	for _, r := range rs {
		if servedKind(v, r.kind.Name) == nil || r.userREST() {
			continue
		}
		items = append(items, jen.Lit(r.kind.Plural).Op(":").Id(r.storeVar()))
		if r.kind.StatusSubresource {
			items = append(items, jen.Lit(r.kind.Plural+"/status").Op(":").Qual(registryPkg, "NewStatusStore").Call(
				jen.Id(r.storeVar()), jen.Id(r.statusStrategyName()).Values(jen.Id(r.strategyName()).Values(jen.Id("scheme").Op(":").Id("scheme")))))
		}
		if k := v.Kind(r.kind.Name); k.Scale != nil {
			items = append(items, jen.Lit(r.kind.Plural+"/scale").Op(":").Id(r.scaleVar()))
		}
	}
	return items
}

package applyconfigurations

import (
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// externalApplyConfigurations are the types client-go already has apply configurations for,
// applyconfiguration-gen's default --external-applyconfigurations.
var externalApplyConfigurations = []string{"ObjectMeta", "OwnerReference", "TypeMeta", "Condition", "DeleteOptions",
	"LabelSelector", "LabelSelectorRequirement", "ManagedFieldsEntry"}

// New returns the applyconfigurations generator. Errors: a model.Diagnostics for a type the
// structured-merge schema cannot describe.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "applyconfigurations".
func (generator) Name() string { return "applyconfigurations" }

// refGraph maps the Go name (model.TypeName.String()) of every type that has an apply
// configuration to the import path of the package holding it.
type refGraph map[string]string

// acType is one type an apply configuration is generated for.
type acType struct {
	t  *model.Type
	gv clientlayout.GroupVersion
	// kind is set when t is a client kind of gv.
	kind *model.Kind
}

// Generate emits the apply configurations of every tree of api.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, t := range clientlayout.Trees(api) {
		refs, types := collect(t)
		if len(types) == 0 {
			continue
		}
		g := &gen{tree: t, refs: refs, names: t.ImportNames()}
		for _, at := range types {
			fs.Add(filepath.Join(t.ApplyDir(at.gv.Segment()), strings.ToLower(at.t.Name.Name)+".go"), g.typeFile(at), "")
		}
		g.packageDocs(&fs, types)
		fs.Add(filepath.Join(t.ApplyDir(""), "utils.go"), g.utilsFile(types),
			"Package applyconfiguration has the apply configurations of the typed clientset.")
		internal, err := g.internalFile(types)
		fs.Fail(err)
		fs.Add(filepath.Join(t.ApplyDir("internal"), "internal.go"), internal,
			"Package internal holds the structured-merge-diff schema of the apply configurations.")
	}
	return fs.Result()
}

// packageDocs adds doc.go to every apply configuration package of types.
func (g *gen) packageDocs(fs *emit.Files, types []acType) {
	seen := map[string]bool{}
	for _, at := range types {
		seg := at.gv.Segment()
		if seen[seg] {
			continue
		}
		seen[seg] = true
		f := emit.NewFile(g.tree.ApplyPath(seg), at.gv.Version.Name, g.names)
		fs.Add(filepath.Join(g.tree.ApplyDir(seg), "doc.go"), f,
			"Package "+at.gv.Version.Name+" has the apply configurations of "+at.gv.DisplayName()+".")
	}
}

// hasApply reports whether a client kind's tags allow apply or applyStatus.
func hasApply(k *model.Kind) bool {
	return k.Client.HasVerb("apply") || k.Client.HasVerb("applyStatus")
}

// collect returns the tree's refGraph and the types to generate, sorted by group version and
// name: every struct type of the tree's version packages reachable from a client kind that
// allows apply, as applyconfiguration-gen's refGraphForReachableTypes.
func collect(t *clientlayout.Tree) (refGraph, []acType) {
	refs := refGraph{}
	for _, name := range externalApplyConfigurations {
		refs[model.TypeName{Package: clientlayout.MetaV1Pkg, Name: name}.String()] = clientlayout.ApplyMetaPkg
	}
	reachable := map[string]bool{}
	for _, gv := range t.GroupVersions {
		for _, k := range gv.Kinds {
			if hasApply(k) {
				reach(k.Type, reachable)
			}
		}
	}
	var types []acType
	for _, gv := range t.GroupVersions {
		kinds := map[string]*model.Kind{}
		for _, k := range gv.Kinds {
			kinds[k.Name] = k
		}
		for _, typ := range gv.Version.Package.Types {
			if !reachable[typ.Name.String()] || !requiresApplyConfiguration(typ) {
				continue
			}
			refs[typ.Name.String()] = t.ApplyPath(gv.Segment())
			types = append(types, acType{t: typ, gv: gv, kind: kinds[typ.Name.Name]})
		}
	}
	return refs, types // in the tree's group version order, each package's types by name
}

// reach marks t and every type its fields, elements and underlying types reach.
func reach(t *model.Type, seen map[string]bool) {
	if t == nil || seen[t.Name.String()] {
		return
	}
	seen[t.Name.String()] = true
	for _, f := range t.Fields {
		reachRef(f.Type, seen)
	}
	if t.Underlying != nil {
		reachRef(t.Underlying, seen)
	}
}

func reachRef(r *model.TypeRef, seen map[string]bool) {
	for r != nil {
		if r.Key != nil {
			reachRef(r.Key, seen)
		}
		if r.Kind == model.Named {
			reach(r.Named, seen)
			return
		}
		r = r.Elem
	}
}

// excluded are the types applyconfiguration-gen never generates apply configurations for.
var excluded = map[string]bool{"k8s.io/apimachinery/pkg/runtime.RawExtension": true, "k8s.io/apimachinery/pkg/runtime.Unknown": true}

// requiresApplyConfiguration reports whether t gets an apply configuration: a struct, not
// RawExtension or Unknown, with a field encoding/json writes.
func requiresApplyConfiguration(t *model.Type) bool {
	if t.Kind != model.Struct || excluded[t.Name.String()] {
		return false
	}
	for _, f := range t.Fields {
		if f.JSONName != "-" {
			return true
		}
	}
	return false
}

// gen generates the apply configurations of one tree.
type gen struct {
	tree  *clientlayout.Tree
	refs  refGraph
	names map[string]string
}

// acOf returns the apply configuration type of a named struct in refs, else nil.
func (g *gen) acOf(t *model.Type) *jen.Statement {
	if t == nil || t.Kind != model.Struct {
		return nil
	}
	if pkg, ok := g.refs[t.Name.String()]; ok {
		return jen.Qual(pkg, t.Name.Name+"ApplyConfiguration")
	}
	return nil
}

// isApplyConfig reports whether r is (a pointer to) a type with an apply configuration.
func (g *gen) isApplyConfig(r *model.TypeRef) bool {
	for r.Kind == model.Pointer {
		r = r.Elem
	}
	return r.Kind == model.Named && g.acOf(r.Named) != nil
}

// memberType is applyconfiguration-gen's applyConfigForType: the type a field has in an apply
// configuration (without the pointer every non-nillable field gets).
func (g *gen) memberType(r *model.TypeRef) jen.Code {
	switch r.Kind {
	case model.Named:
		if ac := g.acOf(r.Named); ac != nil {
			return ac
		}
	case model.Map:
		if r.Elem.Kind == model.Named && g.acOf(r.Elem.Named) != nil {
			return jen.Map(g.memberType(r.Key)).Add(g.memberType(r.Elem))
		}
	case model.Slice:
		if r.Elem.Kind == model.Named && g.acOf(r.Elem.Named) != nil {
			return jen.Index().Add(g.memberType(r.Elem))
		}
	case model.Pointer:
		return g.memberType(r.Elem)
	}
	return emit.TypeRef(r)
}

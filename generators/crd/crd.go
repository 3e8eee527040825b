package crd

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// New returns the crd generator. Generate returns one file per resource of every group that
// gets CustomResourceDefinitions (see the package doc), <CRDDir>/<group>_<plural>.yaml.
// Errors: a model.Diagnostics for a marker the CRD cannot hold (+listType on a field that is
// not a list, +listMapKey without +listType=map); warnings for a group that cannot be a CRD
// group and for a protected group without an approval annotation.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "crd".
func (generator) Name() string { return "crd" }

// Generate writes the CustomResourceDefinitions of api.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	defs, diags := Definitions(api)
	for _, d := range defs {
		out, err := render(d.CRD)
		if err != nil {
			fs.Fail(err)
			break
		}
		fs.Put(filepath.Join(d.Group.CRDDir, d.Group.Name+"_"+d.CRD.Spec.Names.Plural+".yaml"), out)
	}
	fs.Report(diags...)
	return fs.Result()
}

// Definition is the CustomResourceDefinition of one kind of a group, with the kind in each
// of the CRD's versions (Kinds[i] is CRD.Spec.Versions[i]'s).
type Definition struct {
	Group *model.Group
	CRD   *apiext.CustomResourceDefinition
	Kinds []*model.Kind
}

// Definitions builds the CustomResourceDefinitions of every group of api that gets them (see
// the package doc), by group and then by kind, and the diagnostics Generate reports.
func Definitions(api *model.API) ([]Definition, model.Diagnostics) {
	var defs []Definition
	b := newBuilder(api)
	for _, g := range api.Groups {
		if !b.hasCRDs(g) {
			continue
		}
		for _, r := range resources(g) {
			d := Definition{Group: g, CRD: b.crd(g, r)}
			for _, vk := range r.versions {
				d.Kinds = append(d.Kinds, vk.kind)
			}
			defs = append(defs, d)
		}
	}
	return defs, b.diags
}

// hasCRDs reports whether group g gets CustomResourceDefinitions: not the Kubernetes
// built-in groups apigen's runtime serves (runtime/apis: the core group, RBAC, ...; a
// cluster serves them natively and Kubernetes publishes no CRDs for them), and not a group
// whose name is not a domain with a dot, which no CRD can name (a warning).
func (b *builder) hasCRDs(g *model.Group) bool {
	if strings.HasPrefix(g.Hub.Path, emit.RuntimePath+"/") || g.CRDDir == "" {
		return false
	}
	if strings.Contains(g.Name, ".") {
		return true
	}
	for _, r := range resources(g) {
		k := r.versions[0].kind
		b.warnf(k.Pos, "no CustomResourceDefinition for %s: its group %q is not a domain with a dot, which a CRD's group must be", k.Name, g.Name)
	}
	return false
}

// resource is one kind of a group in every version that has it, sorted by version name (the
// order controller-gen writes versions in).
type resource struct {
	kind     string
	versions []versionKind
}

type versionKind struct {
	version *model.Version
	kind    *model.Kind
}

// resources groups the kinds of g by name, sorted by kind; create-only kinds, which have no
// list and are never stored, and kinds whose REST the user writes (+apigen:storage=rest),
// which a CRD could not serve, get no CRD.
func resources(g *model.Group) []resource {
	byKind := map[string][]versionKind{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if !k.CreateOnly && k.UserStorage != "rest" {
				byKind[k.Name] = append(byKind[k.Name], versionKind{v, k})
			}
		}
	}
	out := make([]resource, 0, len(byKind))
	for kind, vks := range byKind {
		sort.Slice(vks, func(i, j int) bool { return vks[i].version.Name < vks[j].version.Name })
		out = append(out, resource{kind, vks})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].kind < out[j].kind })
	return out
}

// crd builds the CustomResourceDefinition of resource r of group g. Names and scope come from
// the kind in the storage version (else its first version); metadata from the
// +kubebuilder:metadata markers of every version, in version order.
func (b *builder) crd(g *model.Group, r resource) *apiext.CustomResourceDefinition {
	storage := storageVersion(g, r)
	k := r.versions[storage].kind
	scope := apiext.NamespaceScoped
	if !k.Namespaced {
		scope = apiext.ClusterScoped
	}
	crd := &apiext.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: apiext.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: k.Plural + "." + g.Name},
		Spec: apiext.CustomResourceDefinitionSpec{
			Group: g.Name,
			Names: apiext.CustomResourceDefinitionNames{Kind: k.Name, ListKind: k.Name + "List", Plural: k.Plural,
				Singular: k.Singular, ShortNames: k.ShortNames, Categories: k.Categories},
			Scope: scope,
		},
	}
	for i, vk := range r.versions {
		m := vk.kind.Type.Markers
		crd.Annotations = addEntries(crd.Annotations, m.CRDAnnotations)
		crd.Labels = addEntries(crd.Labels, m.CRDLabels)
		crd.Spec.Versions = append(crd.Spec.Versions, b.version(vk, i == storage))
	}
	b.checkApproval(g, k, crd)
	return crd
}

// storageVersion returns the index in r.versions of the version objects of r are stored in,
// the kind's own (model.Group.StorageVersionOf: +kubebuilder:storageversion, else the most
// preferred version that has it), as each CRD names its own.
func storageVersion(g *model.Group, r resource) int {
	stored := g.StorageVersionOf(r.versions[0].kind.Name)
	for i, vk := range r.versions {
		if vk.version == stored {
			return i
		}
	}
	return 0
}

// version builds the CRD version of vk: served unless +kubebuilder:unservedversion,
// deprecated (with the marker's warning, if it gives one) by +kubebuilder:deprecatedversion,
// the kind's schema, subresources, printer columns and selectable fields. A kind with printer
// columns and no subresource gets an empty subresources object, as controller-gen writes it.
func (b *builder) version(vk versionKind, storage bool) apiext.CustomResourceDefinitionVersion {
	k := vk.kind
	m := k.Type.Markers
	v := apiext.CustomResourceDefinitionVersion{
		Name:               vk.version.Name,
		Served:             !k.Unserved,
		Storage:            storage,
		Deprecated:         m.DeprecatedVersion,
		DeprecationWarning: m.DeprecationText,
		Schema:             &apiext.CustomResourceValidation{OpenAPIV3Schema: b.kindSchema(k.Type)},
	}
	if k.StatusSubresource || k.Scale != nil || len(k.PrinterColumns) > 0 {
		v.Subresources = &apiext.CustomResourceSubresources{}
	}
	if k.StatusSubresource {
		v.Subresources.Status = &apiext.CustomResourceSubresourceStatus{}
	}
	if sc := k.Scale; sc != nil {
		v.Subresources.Scale = &apiext.CustomResourceSubresourceScale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
		if sc.LabelSelectorPath != "" {
			v.Subresources.Scale.LabelSelectorPath = new(sc.LabelSelectorPath)
		}
	}
	for _, c := range k.PrinterColumns {
		v.AdditionalPrinterColumns = append(v.AdditionalPrinterColumns, apiext.CustomResourceColumnDefinition{
			Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath})
	}
	for _, path := range k.SelectableFields {
		v.SelectableFields = append(v.SelectableFields, apiext.SelectableField{JSONPath: path})
	}
	return v
}

// addEntries adds the "key=value" entries to m, a later entry of a key replacing an earlier.
func addEntries(m map[string]string, entries []string) map[string]string {
	for _, e := range entries {
		key, value, _ := strings.Cut(e, "=")
		if m == nil {
			m = map[string]string{}
		}
		m[key] = value
	}
	return m
}

// approvalAnnotation is the annotation kube-apiserver requires on a CRD of a protected group.
const approvalAnnotation = "api-approved.kubernetes.io"

// checkApproval warns, at kind k, when the group is one Kubernetes protects (k8s.io,
// kubernetes.io and their subdomains) and the CRD has no approval annotation: kube-apiserver
// refuses to create such a CRD.
func (b *builder) checkApproval(g *model.Group, k *model.Kind, crd *apiext.CustomResourceDefinition) {
	protected := slices.ContainsFunc([]string{"k8s.io", "kubernetes.io"}, func(d string) bool {
		return g.Name == d || strings.HasSuffix(g.Name, "."+d)
	})
	if _, ok := crd.Annotations[approvalAnnotation]; protected && !ok {
		b.warnf(k.Pos, "the CustomResourceDefinition of %s needs the annotation %s, which kube-apiserver requires for group %s: add +kubebuilder:metadata:annotations=\"%s=<URL of the API review>\"",
			k.Name, approvalAnnotation, g.Name, approvalAnnotation)
	}
}

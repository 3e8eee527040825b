package customresource

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
	crschema "github.com/apigen-dev/apigen/runtime/validation/structural"
)

// Definition is what the Handler needs of one CustomResourceDefinition: the CRD API builds
// it from a CRD object (spec.group, spec.names, spec.scope, the served spec.versions and the
// storage version, metadata.uid).
type Definition struct {
	// Group is the API group, e.g. "stable.example.com".
	Group string
	// Names are the resource's names (spec.names, or status.acceptedNames).
	Names Names
	// Namespaced is spec.scope == Namespaced.
	Namespaced bool
	// Versions are the served versions. The Handler sorts them by kube's version priority
	// (v1 > v1beta1 > v1alpha1 > others, as discovery does) to pick the preferred one.
	Versions []Version
	// StorageVersion is the version objects are stored in (encoded with that apiVersion). It
	// need not be served.
	StorageVersion string
	// UID is the CRD's uid: a recreated CRD of the same name gets fresh storage state.
	UID types.UID
	// Webhook is spec.conversion.webhook when spec.conversion.strategy is Webhook: objects
	// change versions through it (runtime/apiextensions/conversion). Nil is strategy None:
	// only apiVersion changes.
	Webhook *conversion.Config
}

// Names are a custom resource's names, as apiextensions' CustomResourceDefinitionNames.
type Names struct {
	// Plural is the resource ("crontabs"); Singular its singular ("crontab").
	Plural, Singular string
	// Kind is the kind ("CronTab"); ListKind the list's ("CronTabList", Kind+"List" when empty).
	Kind, ListKind string
	// ShortNames ("ct") and Categories ("all") are published in discovery.
	ShortNames, Categories []string
}

// Version is one served version of a Definition, as apiextensions'
// CustomResourceDefinitionVersion.
type Version struct {
	// Name is the version ("v1").
	Name string
	// Schema validates, prunes and defaults objects of the version; nil means no validation,
	// pruning or defaulting (x-kubernetes-preserve-unknown-fields everywhere).
	Schema *crschema.Structural
	// OpenAPISchema is the version's openAPIV3Schema as generic JSON, which the published
	// OpenAPI documents and field management's merge semantics come from; nil when none.
	OpenAPISchema map[string]any
	// Status enables the status subresource.
	Status bool
	// Scale enables the scale subresource (autoscaling/v1 Scale); nil disables it.
	Scale *Scale
	// PrinterColumns are the additionalPrinterColumns; none means NAME and AGE.
	PrinterColumns []tableconvertor.Column
	// SelectableFields are the fields a field selector may name beyond metadata.name and
	// metadata.namespace, as JSON paths without the leading dot ("spec.color").
	SelectableFields []string
	// Deprecated marks the version deprecated: every request gets a Warning header with
	// DeprecationWarning, or kube's default "<group>/<version> <Kind> is deprecated".
	Deprecated         bool
	DeprecationWarning string
}

// Scale is a version's scale subresource, as apiextensions' CustomResourceSubresourceScale:
// dotted JSON paths (".spec.replicas") into the object.
type Scale struct {
	// SpecReplicasPath names the desired replicas (Scale spec.replicas); required.
	SpecReplicasPath string
	// StatusReplicasPath names the observed replicas (Scale status.replicas); required.
	StatusReplicasPath string
	// LabelSelectorPath names the serialized label selector (Scale status.selector); optional.
	LabelSelectorPath string
}

// listKind is Names.ListKind or Kind+"List".
func (n Names) listKind() string {
	if n.ListKind != "" {
		return n.ListKind
	}
	return n.Kind + "List"
}

// resource is the definition's group resource ("crontabs.stable.example.com").
func (d *Definition) resource() schema.GroupResource {
	return schema.GroupResource{Group: d.Group, Resource: d.Names.Plural}
}

// storageGVK is the kind objects are stored as.
func (d *Definition) storageGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: d.Group, Version: d.StorageVersion, Kind: d.Names.Kind}
}

// version returns the served version named name, or nil.
func (d *Definition) version(name string) *Version {
	for i := range d.Versions {
		if d.Versions[i].Name == name {
			return &d.Versions[i]
		}
	}
	return nil
}

// check reports what makes d unservable: missing names, no served versions, a scale
// subresource without its replica paths.
func (d *Definition) check() error {
	switch {
	case d.Group == "" || d.Names.Plural == "" || d.Names.Kind == "":
		return fmt.Errorf("cannot serve a custom resource without group, plural and kind (%q, %q, %q)", d.Group, d.Names.Plural, d.Names.Kind)
	case len(d.Versions) == 0:
		return fmt.Errorf("cannot serve %s: no served versions", d.resource())
	case d.StorageVersion == "":
		return fmt.Errorf("cannot serve %s: no storage version", d.resource())
	}
	for _, v := range d.Versions {
		if v.Scale != nil && (v.Scale.SpecReplicasPath == "" || v.Scale.StatusReplicasPath == "") {
			return fmt.Errorf("cannot serve %s/%s: the scale subresource needs specReplicasPath and statusReplicasPath",
				d.resource(), v.Name)
		}
	}
	return nil
}

// sortVersions sorts names by kube's version priority (version.CompareKubeAwareVersionStrings:
// GA before beta before alpha, higher numbers first, then other names alphabetically), as
// apiextensions-apiserver orders a group's versions in discovery.
func sortVersions(names []string) {
	sort.SliceStable(names, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(names[i], names[j]) > 0
	})
}

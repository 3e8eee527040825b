package load

import (
	"sort"
	"strings"

	"github.com/gobuffalo/flect"

	"github.com/apigen-dev/apigen/generators/model"
)

// kinds returns the kinds of a version package, sorted by name: root struct types that
// embed metav1.ObjectMeta and have a sibling <Name>List type, or are create-only
// (+genclient:onlyVerbs=create, no list type needed). A root type that looks like a kind but
// has no list type gets a warning.
func (b *builder) kinds(p *model.Package) []*model.Kind {
	var kinds []*model.Kind
	for _, t := range p.Types {
		if t.Markers.Clients != "" {
			b.warnf(t.Pos, "+apigen:clients on %s does nothing on a type: write it in the package comment (doc.go or groupversion_info.go)", t.Name.Name)
		}
		if t.Kind != model.Struct || !t.Markers.Root || !embedsObjectMeta(t) {
			b.versionMarkersOnNonKind(t)
			continue
		}
		if t.Markers.SkipVersion {
			// controller-gen leaves such a type out of the version; so does apigen.
			continue
		}
		createOnly := b.createOnly(t)
		list := p.Type(t.Name.Name + "List")
		if createOnly {
			list = nil
		} else if list == nil {
			b.diags = append(b.diags, model.Diagnostic{Pos: t.Pos, Warning: true,
				Message: "root type " + t.Name.Name + " has no " + t.Name.Name + "List type; it is not served as a kind"})
			continue
		}
		k := b.kind(t, list)
		if createOnly {
			k.CreateOnly, k.StatusSubresource = true, false
		}
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Name < kinds[j].Name })
	return kinds
}

// kind builds the REST metadata of one kind from its markers.
func (b *builder) kind(t, list *model.Type) *model.Kind {
	m := t.Markers
	k := &model.Kind{
		Name:              t.Name.Name,
		Type:              t,
		List:              list,
		Plural:            ResourcePlural(t.Name.Name, m.GenClient),
		Singular:          strings.ToLower(t.Name.Name),
		Namespaced:        !m.NonNamespaced,
		StatusSubresource: m.StatusSub,
		Scale:             m.Scale,
		PrinterColumns:    m.PrinterColumns,
		SelectableFields:  m.SelectableFields,
		NameValidation:    m.NameValidation,
		Pos:               t.Pos,
	}
	switch m.NameValidation {
	case "", "DNS1123Subdomain", "DNS1123Label", "PathSegment":
	default:
		b.errorf(t.Pos, "+apigen:nameValidation=%s on %s: write DNS1123Subdomain, DNS1123Label or PathSegment", m.NameValidation, t.Name.Name)
	}
	switch m.Storage {
	case "", "etcd":
	case "rest":
		k.UserStorage = m.Storage // checked with the install package (restStorage)
	case "interface":
		// Its constructor, new<Kind>Storage in the install package, is checked with the
		// group's hand-written install files (checkUserStorage).
		k.UserStorage = m.Storage
	default:
		b.errorf(t.Pos, "+apigen:storage=%s on %s: write etcd, interface or rest", m.Storage, t.Name.Name)
	}
	if r := m.Resource; r != nil {
		if r.Path != "" {
			k.Plural = r.Path
		}
		if r.Singular != "" {
			k.Singular = r.Singular
		}
		k.ShortNames, k.Categories = r.ShortNames, r.Categories
		if r.Scope == "Cluster" {
			k.Namespaced = false
		}
	}
	if m.GenClient && !k.StatusSubresource && t.Field("Status") != nil && !m.NoStatus {
		k.StatusSubresource = true
	}
	k.Unserved = m.UnservedVersion
	if m.GenClient {
		k.Client = b.client(t)
	} else {
		b.clientTagsWithoutGenclient(t)
	}
	b.checkKindPaths(k)
	return k
}

// createOnly reports whether t is marked +genclient:onlyVerbs=create, as Kubernetes' review
// kinds: created and answered, never stored. Other verb lists limit the verbs the kind is
// served with and its client has (see client).
func (b *builder) createOnly(t *model.Type) bool {
	verbs := t.Markers.OnlyVerbs
	return len(verbs) == 1 && verbs[0] == "create"
}

// embedsObjectMeta reports whether t embeds metav1.ObjectMeta.
func embedsObjectMeta(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.Embedded && f.Type.Kind == model.Named && f.Type.Named.Name == (model.TypeName{Package: metav1Path, Name: "ObjectMeta"}) {
			return true
		}
	}
	return false
}

// Plural returns the lower-case plural of a kind, as controller-gen names a CRD's resource
// (strings.ToLower(flect.Pluralize(kind))): database -> databases, class -> classes, policy
// -> policies, shelf -> shelves, index -> indices.
func Plural(kind string) string {
	if kind == "" {
		return ""
	}
	return strings.ToLower(flect.Pluralize(kind))
}

// ResourcePlural returns the resource name a kind is served at before
// +kubebuilder:resource:path overrides it: for a +genclient kind the one client-gen's
// clients request (gengo's all-lowercase plural namer with client-gen's exceptions: Index ->
// indexes, Person -> persons), else controller-gen's (Plural: indices, people).
func ResourcePlural(kind string, genclient bool) string {
	if genclient {
		return clientResource(kind)
	}
	return Plural(kind)
}

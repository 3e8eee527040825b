package load

import (
	"fmt"
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
		if t.Kind != model.Struct || !t.Markers.Root || !embedsObjectMeta(t) {
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
		Plural:            Plural(strings.ToLower(t.Name.Name)),
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
	if m.GenClient && !k.StatusSubresource && t.Field("Status") != nil && !b.noStatus[t.Name.String()] {
		k.StatusSubresource = true
	}
	b.checkKindPaths(k)
	return k
}

// createOnly reports whether t is marked +genclient:onlyVerbs=create. Other verb lists only
// limit a generated client in Kubernetes' tools; apigen serves such a kind with every verb
// and says so in a warning.
func (b *builder) createOnly(t *model.Type) bool {
	verbs := t.Markers.OnlyVerbs
	if len(verbs) == 1 && verbs[0] == "create" {
		return true
	}
	if len(verbs) > 0 {
		b.diags = append(b.diags, model.Diagnostic{Pos: t.Pos, Warning: true, Message: fmt.Sprintf(
			"+genclient:onlyVerbs=%s on %s: apigen serves %s with every verb its storage has; only onlyVerbs=create changes what is served (a create-only kind, never stored)",
			strings.Join(verbs, ","), t.Name.Name, t.Name.Name)})
	}
	return false
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

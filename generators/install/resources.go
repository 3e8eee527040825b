package install

import (
	"fmt"
	"unicode"

	"github.com/apigen-dev/apigen/generators/model"
)

// resource is one kind as the server serves it, merged over every version that has it.
type resource struct {
	// kind carries the REST metadata: the storage version's kind.
	kind *model.Kind
	// obj and list are the types stored and handed to the strategy (hub types); list is nil
	// for a create-only kind. hub is their package (model.Group.ObjectPackage), whose
	// Validate<Kind> hooks the strategy calls.
	obj, list *model.Type
	hub       *model.Package
	// storage is the version objects are encoded in for etcd (model.Group.StorageVersionOf).
	storage *model.Version
	// scale is the /scale mapping: the storage version's, else the first version's that has
	// one; nil when no version serves /scale.
	scale *model.Scale
	// selectable are the +kubebuilder:selectablefield JSON paths, chosen as scale is.
	selectable []string
	// columns are the printer columns of the table convertor.
	columns []model.PrinterColumn
	// ident is the kind's name as the start of an unexported identifier ("databaseClass").
	ident string
}

// strategyName is the kind's strategy type, statusStrategyName its status strategy's.
func (r *resource) strategyName() string       { return r.ident + "Strategy" }
func (r *resource) statusStrategyName() string { return r.ident + "StatusStrategy" }
func (r *resource) storeFunc() string          { return "new" + r.kind.Name + "Store" }
func (r *resource) storeVar() string           { return r.ident + "Store" }
func (r *resource) scaleVar() string           { return r.ident + "ScaleStore" }

// anyCreateOnly reports whether some resource is create-only.
func anyCreateOnly(rs []*resource) bool {
	for _, r := range rs {
		if r.kind.CreateOnly {
			return true
		}
	}
	return false
}

// anyScale reports whether some version of some resource has a scale subresource.
func anyScale(rs []*resource) bool {
	for _, r := range rs {
		if r.scale != nil {
			return true
		}
	}
	return false
}

// resources merges the kinds of every version of g, sorted by kind name. A kind whose object
// package (the hub) lacks the kind's type or list type is a diagnostic at the kind.
func resources(g *model.Group) ([]*resource, model.Diagnostics) {
	names := g.KindNames()
	var out []*resource
	var diags model.Diagnostics
	for _, name := range names {
		r, d := newResource(g, name)
		if d != nil {
			diags = append(diags, *d)
			continue
		}
		out = append(out, r)
	}
	return out, diags
}

// newResource merges kind name over g's versions.
func newResource(g *model.Group, name string) (*resource, *model.Diagnostic) {
	r := &resource{ident: lowerFirst(name), storage: g.StorageVersionOf(name), hub: g.ObjectPackage(name)}
	r.kind = r.storage.Kind(name)
	r.columns, r.scale, r.selectable = r.kind.PrinterColumns, r.kind.Scale, r.kind.SelectableFields
	for _, v := range g.Versions {
		k := v.Kind(name)
		if k == nil {
			continue
		}
		if len(r.columns) == 0 {
			r.columns = k.PrinterColumns
		}
		if r.scale == nil {
			r.scale = k.Scale
		}
		if len(r.selectable) == 0 {
			r.selectable = k.SelectableFields
		}
	}
	r.obj = r.hub.Type(name)
	if r.kind.CreateOnly {
		if r.obj == nil || r.obj.Kind != model.Struct {
			return nil, &model.Diagnostic{Pos: r.kind.Pos, Message: fmt.Sprintf(
				"cannot serve kind %s of group %s: the hub package %s (%s) must declare struct type %s",
				name, g.Name, r.hub.Name, r.hub.Path, name)}
		}
		return r, nil
	}
	listName := name + "List"
	if r.kind.List != nil {
		listName = r.kind.List.Name.Name
	}
	r.list = r.hub.Type(listName)
	if r.obj == nil || r.list == nil || r.obj.Kind != model.Struct {
		return nil, &model.Diagnostic{Pos: r.kind.Pos, Message: fmt.Sprintf(
			"cannot serve kind %s of group %s: the hub package %s (%s) must declare struct types %s and %s",
			name, g.Name, r.hub.Name, r.hub.Path, name, listName)}
	}
	return r, nil
}

// lowerFirst lower-cases the leading upper-case run of an identifier, keeping the last upper
// letter of a run followed by a lower-case one: "DatabaseClass" -> "databaseClass",
// "APIService" -> "apiService", "DB" -> "db".
func lowerFirst(s string) string {
	runes := []rune(s)
	for i := range runes {
		if !unicode.IsUpper(runes[i]) {
			break
		}
		if i > 0 && i+1 < len(runes) && unicode.IsLower(runes[i+1]) {
			break
		}
		runes[i] = unicode.ToLower(runes[i])
	}
	return string(runes)
}

// qualifiedResource names a resource as Kubernetes' schema.GroupResource.String does:
// "databases.db.example.com", or just "namespaces" in the core group ("").
func qualifiedResource(plural, group string) string {
	if group == "" {
		return plural
	}
	return plural + "." + group
}

// groupDescription names a group in doc comments: "db.example.com group", or "core group"
// for "".
func groupDescription(group string) string {
	if group == "" {
		return "core group"
	}
	return group + " group"
}

package compat

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apigen-dev/apigen/generators/crd"
	"github.com/apigen-dev/apigen/generators/model"
)

// schemaKey names the schema of one kind in one version of one group.
type schemaKey struct{ group, version, kind string }

// schema is one kind's CustomResourceDefinition schema in one version.
type schema struct{ props *apiext.JSONSchemaProps }

// schemas returns the CRD schema of every kind of api in every version, as generators/crd
// writes it (controller-gen's markers, apiextensions' structural schema): the effective
// validation a marker gives, whatever its spelling. A group whose name has no dot, for which
// no CRD is written, gets its schemas all the same under a placeholder name.
func schemas(api *model.API) map[schemaKey]*schema {
	shadow := *api
	shadow.Groups = nil
	names := map[string]string{}
	for _, g := range api.Groups {
		cp := *g
		if !strings.Contains(cp.Name, ".") || cp.CRDDir == "" {
			cp.Name += ".compat.apigen.invalid"
			cp.CRDDir = "crd"
			cp.Hub = &model.Package{Path: "compat.invalid/" + cp.Name}
			if g.Hub != nil {
				hub := *g.Hub
				hub.Path = "compat.invalid/" + hub.Path
				cp.Hub = &hub
			}
		}
		names[cp.Name] = g.Name
		shadow.Groups = append(shadow.Groups, &cp)
	}
	defs, _ := crd.Definitions(&shadow)
	out := map[schemaKey]*schema{}
	for _, d := range defs {
		for i, v := range d.CRD.Spec.Versions {
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				out[schemaKey{names[d.Group.Name], v.Name, d.Kinds[i].Name}] = &schema{v.Schema.OpenAPIV3Schema}
			}
		}
	}
	return out
}

// kindComparer compares one kind's schema and Go fields between the ref and now.
type kindComparer struct {
	c                    *comparer
	group, version, kind string
	oldIdx, newIdx       map[string]node
	kindNew              *model.Kind
	pkgNew               *model.Package
}

// change adds a change at path of the new tree.
func (kc *kindComparer) change(name string, sev Severity, path string, fromType bool, format string, args ...any) {
	kc.c.add(Change{Name: name, Severity: sev, Group: kc.group, Version: kc.version, Kind: kc.kind, Path: path,
		Pos: kc.posAt(path, fromType), Reason: fmt.Sprintf(format, args...), allow: kc.allowAt(path)})
}

// removed adds a change at path of the tree at the ref.
func (kc *kindComparer) removed(name, path, format string, args ...any) {
	n, _ := nearest(kc.oldIdx, path)
	kc.c.add(Change{Name: name, Severity: Breaking, Group: kc.group, Version: kc.version, Kind: kc.kind, Path: path,
		Pos: n.pos(), AtRef: true, Reason: fmt.Sprintf(format, args...), allow: kc.allowAt(path)})
}

// posAt is the declaration of path now: the field, or, for a constraint its field did not
// change (fromType: it comes from the field's named type, whose markers or enum constants
// changed), the type; for a path without a declaration of its own (list items), the closest
// declared ancestor.
func (kc *kindComparer) posAt(path string, fromType bool) model.Position {
	n, found := nearest(kc.newIdx, path)
	if fromType && n.typ != nil && n.typ.Local {
		o, ok := kc.oldIdx[found]
		if n.field == nil || (ok && o.field != nil && reflect.DeepEqual(o.field.Markers, n.field.Markers)) {
			return n.typ.Pos
		}
	}
	for n.pos() == (model.Position{}) && found != "" {
		n, found = nearest(kc.newIdx, parent(found))
	}
	if n.pos() == (model.Position{}) {
		return kc.kindNew.Pos
	}
	return n.pos()
}

// allowAt returns the names +apigen:allow-breaking accepts at path: on its field, the struct
// declaring it and its field's type (or, for a path gone, the struct that declared it), the
// kind and the version's package.
func (kc *kindComparer) allowAt(path string) []string {
	var names []string
	if n, ok := kc.newIdx[path]; ok {
		if n.field != nil {
			names = append(names, n.field.Markers.AllowBreaking...)
		}
		if n.owner != nil {
			names = append(names, n.owner.Markers.AllowBreaking...)
		}
		if n.typ != nil {
			names = append(names, n.typ.Markers.AllowBreaking...)
		}
	} else if p, _ := nearest(kc.newIdx, parent(path)); p.typ != nil {
		names = append(names, p.typ.Markers.AllowBreaking...)
		if p.field != nil {
			names = append(names, p.field.Markers.AllowBreaking...)
		}
	}
	names = append(names, kc.kindNew.Type.Markers.AllowBreaking...)
	return append(names, kc.pkgNew.Markers.AllowBreaking...)
}

// typeOf is a schema's JSON type, "int-or-string" for x-kubernetes-int-or-string.
func typeOf(s *apiext.JSONSchemaProps) string {
	if s.XIntOrString {
		return "int-or-string"
	}
	if s.Type == "" {
		return "any"
	}
	return s.Type
}

// walk compares the schemas at path, o at the ref and n now, both present, then their
// properties, items and values.
func (kc *kindComparer) walk(path string, o, n *apiext.JSONSchemaProps) {
	o, n = effective(o), effective(n)
	what := path
	if what == "" {
		what = "the object"
	}
	if typeOf(o) != typeOf(n) {
		kc.change("type-changed", Breaking, path, true, "type of %s changes from %s to %s: clients and stored objects of the old type no longer decode; a field's type cannot change in a served version", what, typeOf(o), typeOf(n))
		return
	}
	if o.Format != n.Format {
		kc.change("format-changed", Breaking, path, true, "format of %s changes from %q to %q: values valid or representable before may fail or overflow; a field's format cannot change in a served version", what, o.Format, n.Format)
	}
	if o.Nullable && !n.Nullable {
		kc.change("nullable-removed", Breaking, path, false, "%s no longer accepts null: requests and stored objects sending null fail validation", what)
	}
	kc.enum(path, what, o, n)
	kc.bounds(path, what, o, n)
	if !bytes.Equal(jsonOf(o.Default), jsonOf(n.Default)) {
		kc.change("default-changed", Breaking, path, true, "default of %s changes from %s to %s: objects written or read without it change meaning; a default cannot change in a served version", what, jsonText(o.Default), jsonText(n.Default))
	}
	kc.topology(path, what, o, n)
	kc.rules(path, what, o, n)
	kc.properties(path, o, n)
	if o.Items != nil && n.Items != nil && o.Items.Schema != nil && n.Items.Schema != nil {
		kc.walk(path+"[*]", o.Items.Schema, n.Items.Schema)
	}
	if o.AdditionalProperties != nil && n.AdditionalProperties != nil && o.AdditionalProperties.Schema != nil && n.AdditionalProperties.Schema != nil {
		kc.walk(path+"{*}", o.AdditionalProperties.Schema, n.AdditionalProperties.Schema)
	}
}

// enum compares the enums of o and n.
func (kc *kindComparer) enum(path, what string, o, n *apiext.JSONSchemaProps) {
	ov, nv := enumValues(o), enumValues(n)
	switch {
	case len(ov) == 0 && len(nv) > 0:
		kc.change("enum-added", Breaking, path, true, "%s now accepts only %s: values valid before fail validation; validation cannot be tightened in a served version", what, strings.Join(nv, ", "))
	case len(ov) > 0 && len(nv) == 0:
		kc.change("validation-loosened", Additive, path, true, "%s accepts any value, not only %s", what, strings.Join(ov, ", "))
	default:
		var gone, added []string
		for _, v := range ov {
			if !slices.Contains(nv, v) {
				gone = append(gone, v)
			}
		}
		for _, v := range nv {
			if !slices.Contains(ov, v) {
				added = append(added, v)
			}
		}
		if len(gone) > 0 {
			kc.change("enum-value-removed", Breaking, path, true, "%s no longer accepts %s: requests and stored objects using it fail validation; enum values cannot be removed from a served version", what, strings.Join(gone, ", "))
		}
		if len(added) > 0 {
			kc.change("enum-value-added", Additive, path, true, "%s also accepts %s", what, strings.Join(added, ", "))
		}
	}
}

func enumValues(s *apiext.JSONSchemaProps) []string {
	var out []string
	for _, v := range s.Enum {
		out = append(out, string(v.Raw))
	}
	sort.Strings(out)
	return out
}

// bounds compares the numeric, length, count and pattern constraints of o and n.
func (kc *kindComparer) bounds(path, what string, o, n *apiext.JSONSchemaProps) {
	tight := func(name, constraint string, before, after string) {
		kc.change(name, Breaking, path, true, "%s of %s changes from %s to %s: values valid before fail validation; validation cannot be tightened in a served version", constraint, what, before, after)
	}
	loose := func(constraint, before, after string) {
		kc.change("validation-loosened", Additive, path, true, "%s of %s changes from %s to %s", constraint, what, before, after)
	}
	// Lower bounds: raised when set or higher (or made exclusive at the same value).
	if t, l := cmpFloat(o.Minimum, o.ExclusiveMinimum, n.Minimum, n.ExclusiveMinimum, +1); t {
		tight("minimum-raised", "minimum", boundText(o.Minimum, o.ExclusiveMinimum), boundText(n.Minimum, n.ExclusiveMinimum))
	} else if l {
		loose("minimum", boundText(o.Minimum, o.ExclusiveMinimum), boundText(n.Minimum, n.ExclusiveMinimum))
	}
	if t, l := cmpFloat(o.Maximum, o.ExclusiveMaximum, n.Maximum, n.ExclusiveMaximum, -1); t {
		tight("maximum-lowered", "maximum", boundText(o.Maximum, o.ExclusiveMaximum), boundText(n.Maximum, n.ExclusiveMaximum))
	} else if l {
		loose("maximum", boundText(o.Maximum, o.ExclusiveMaximum), boundText(n.Maximum, n.ExclusiveMaximum))
	}
	for _, b := range []struct {
		name, constraint string
		o, n             *int64
		dir              int
	}{
		{"min-length-raised", "minLength", o.MinLength, n.MinLength, +1},
		{"max-length-lowered", "maxLength", o.MaxLength, n.MaxLength, -1},
		{"min-items-raised", "minItems", o.MinItems, n.MinItems, +1},
		{"max-items-lowered", "maxItems", o.MaxItems, n.MaxItems, -1},
		{"min-properties-raised", "minProperties", o.MinProperties, n.MinProperties, +1},
		{"max-properties-lowered", "maxProperties", o.MaxProperties, n.MaxProperties, -1},
	} {
		if t, l := cmpFloat(toFloat(b.o), false, toFloat(b.n), false, b.dir); t {
			tight(b.name, b.constraint, intText(b.o), intText(b.n))
		} else if l {
			loose(b.constraint, intText(b.o), intText(b.n))
		}
	}
	switch {
	case n.MultipleOf != nil && (o.MultipleOf == nil || *o.MultipleOf != *n.MultipleOf):
		tight("multiple-of-changed", "multipleOf", boundText(o.MultipleOf, false), boundText(n.MultipleOf, false))
	case o.MultipleOf != nil && n.MultipleOf == nil:
		loose("multipleOf", boundText(o.MultipleOf, false), "none")
	}
	switch {
	case n.UniqueItems && !o.UniqueItems:
		tight("unique-items-added", "uniqueItems", "false", "true")
	case o.UniqueItems && !n.UniqueItems:
		loose("uniqueItems", "true", "false")
	}
	switch {
	case n.Pattern != "" && n.Pattern != o.Pattern:
		tight("pattern-changed", "pattern", quoteOrNone(o.Pattern), quoteOrNone(n.Pattern))
	case o.Pattern != "" && n.Pattern == "":
		loose("pattern", quoteOrNone(o.Pattern), "none")
	}
}

// cmpFloat compares a bound before (o) and after (n): tightened or loosened, for a lower
// bound (dir +1: higher is tighter) or an upper one (dir -1).
func cmpFloat(o *float64, oExcl bool, n *float64, nExcl bool, dir int) (tightened, loosened bool) {
	switch {
	case o == nil && n == nil:
		return false, false
	case o == nil:
		return true, false
	case n == nil:
		return false, true
	}
	d := (*n - *o) * float64(dir)
	switch {
	case d > 0:
		return true, false
	case d < 0:
		return false, true
	case nExcl && !oExcl:
		return true, false
	case oExcl && !nExcl:
		return false, true
	}
	return false, false
}

func toFloat(v *int64) *float64 {
	if v == nil {
		return nil
	}
	f := float64(*v)
	return &f
}

func boundText(v *float64, excl bool) string {
	if v == nil {
		return "none"
	}
	s := strconv.FormatFloat(*v, 'g', -1, 64)
	if excl {
		return s + " (exclusive)"
	}
	return s
}

func intText(v *int64) string {
	if v == nil {
		return "none"
	}
	return strconv.FormatInt(*v, 10)
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}

func jsonOf(j *apiext.JSON) []byte {
	if j == nil {
		return nil
	}
	return j.Raw
}

func jsonText(j *apiext.JSON) string {
	if j == nil {
		return "none"
	}
	return string(j.Raw)
}

// topology compares x-kubernetes-list-type, list-map-keys and map-type: how server-side
// apply merges the value and who owns its parts.
func (kc *kindComparer) topology(path, what string, o, n *apiext.JSONSchemaProps) {
	why := "server-side apply merges it differently, and field managers' ownership of stored objects no longer matches; a value's topology cannot change in a served version"
	if n.Type == "array" {
		if ol, nl := orDefault(o.XListType, "atomic"), orDefault(n.XListType, "atomic"); ol != nl {
			kc.change("list-type-changed", Breaking, path, true, "list type of %s changes from %s to %s: %s", what, ol, nl, why)
		} else if nl == "map" && !slices.Equal(o.XListMapKeys, n.XListMapKeys) {
			kc.change("list-map-keys-changed", Breaking, path, true, "list-map keys of %s change from %s to %s: %s", what, keysText(o.XListMapKeys), keysText(n.XListMapKeys), why)
		}
	}
	if n.Type == "object" {
		om, nm := orDefault(o.XMapType, "granular"), orDefault(n.XMapType, "granular")
		if om == nm {
			return
		}
		if n.AdditionalProperties != nil && len(n.Properties) == 0 {
			kc.change("map-type-changed", Breaking, path, true, "map type of %s changes from %s to %s: %s", what, om, nm, why)
		} else {
			kc.change("struct-type-changed", Breaking, path, true, "struct type of %s changes from %s to %s: %s", what, om, nm, why)
		}
	}
}

func orDefault(s *string, def string) string {
	if s == nil || *s == "" {
		return def
	}
	return *s
}

func keysText(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ",")
}

// oldSelf matches a CEL rule's reference to the old value: a transition rule, which
// apiextensions runs only on updates of a value that exists, so objects stored before
// are not held to it until they change (ratcheting).
var oldSelf = regexp.MustCompile(`\boldSelf\b`)

// rules compares the x-kubernetes-validations of o and n by rule text.
func (kc *kindComparer) rules(path, what string, o, n *apiext.JSONSchemaProps) {
	var gone []string
	for _, r := range o.XValidations {
		if !slices.ContainsFunc(n.XValidations, func(x apiext.ValidationRule) bool { return x.Rule == r.Rule }) {
			gone = append(gone, r.Rule)
		}
	}
	for _, r := range n.XValidations {
		if slices.ContainsFunc(o.XValidations, func(x apiext.ValidationRule) bool { return x.Rule == r.Rule }) {
			continue
		}
		switch {
		case oldSelf.MatchString(r.Rule):
			kc.change("transition-rule-added", Additive, path, true, "transition rule %q on %s uses oldSelf: objects stored before are held to it only when they change", r.Rule, what)
		case len(gone) > 0:
			kc.change("validation-rule-changed", Breaking, path, true, "CEL rule %q on %s becomes %q, without oldSelf: objects stored before may fail it on their next write; make it a transition rule (oldSelf) or add it in a new version", gone[0], what, r.Rule)
			gone = gone[1:]
		default:
			kc.change("validation-rule-added", Breaking, path, true, "new CEL rule %q on %s, without oldSelf: objects stored before may fail it on their next write; make it a transition rule (oldSelf) or add it in a new version", r.Rule, what)
		}
	}
	for _, r := range gone {
		kc.change("validation-loosened", Additive, path, true, "CEL rule %q on %s is removed", r, what)
	}
}

// properties compares the properties of objects o and n: required ones, removed ones (or
// renamed: the same Go field under another JSON name), added ones, and each present in both.
func (kc *kindComparer) properties(path string, o, n *apiext.JSONSchemaProps) {
	var added, removed []string
	for name := range n.Properties {
		if _, ok := o.Properties[name]; !ok {
			added = append(added, name)
		}
	}
	for name := range o.Properties {
		if _, ok := n.Properties[name]; !ok {
			removed = append(removed, name)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	for _, name := range removed {
		p := path + "." + name
		if to := kc.renamedTo(path, name, added); to != "" {
			added = slices.DeleteFunc(added, func(a string) bool { return a == to })
			kc.change("field-renamed", Breaking, path+"."+to, false, "JSON field %s is renamed %q: clients sending %q lose the value and stored objects keep it under the old name; a field cannot be renamed in a served version", p, to, name)
			continue
		}
		kc.removed("field-removed", p, "field %s is removed: clients setting it lose it or fail, and stored objects keep a value nobody can read; a field cannot be removed from a served version", p)
	}
	for _, name := range added {
		p := path + "." + name
		ns := n.Properties[name]
		if slices.Contains(n.Required, name) && ns.Default == nil {
			kc.change("required-field-added", Breaking, p, false, "new field %s is required and has no default: every request written before the change fails; a new field must be optional or defaulted", p)
			continue
		}
		kc.change("field-added", Additive, p, false, "new optional field %s", p)
	}
	for name, os := range o.Properties {
		ns, ok := n.Properties[name]
		if !ok {
			continue
		}
		p := path + "." + name
		was, is := slices.Contains(o.Required, name), slices.Contains(n.Required, name)
		switch {
		case is && !was:
			kc.change("field-required", Breaking, p, false, "%s becomes required: requests without it, which succeeded before, fail; an optional field cannot become required", p)
		case was && !is:
			kc.change("validation-loosened", Additive, p, false, "%s becomes optional", p)
		}
		kc.walk(p, &os, &ns)
	}
}

// renamedTo returns the added property of path declared by the Go field that declared the
// removed property name at the ref, "" when there is none.
func (kc *kindComparer) renamedTo(path, name string, added []string) string {
	o, ok := kc.oldIdx[path+"."+name]
	if !ok || o.field == nil {
		return ""
	}
	for _, a := range added {
		if n, ok := kc.newIdx[path+"."+a]; ok && n.field != nil && n.field.Name == o.field.Name {
			return a
		}
	}
	return ""
}

// effective returns s with its allOf merged, as apiextensions validates a value against
// every entry: the highest lower bound, the lowest upper bound, every pattern and rule.
func effective(s *apiext.JSONSchemaProps) *apiext.JSONSchemaProps {
	if len(s.AllOf) == 0 {
		return s
	}
	e := *s
	e.AllOf = nil
	for i := range s.AllOf {
		a := effective(&s.AllOf[i])
		e.Minimum, e.ExclusiveMinimum = tighterFloat(e.Minimum, e.ExclusiveMinimum, a.Minimum, a.ExclusiveMinimum, +1)
		e.Maximum, e.ExclusiveMaximum = tighterFloat(e.Maximum, e.ExclusiveMaximum, a.Maximum, a.ExclusiveMaximum, -1)
		e.MinLength = tighterInt(e.MinLength, a.MinLength, +1)
		e.MaxLength = tighterInt(e.MaxLength, a.MaxLength, -1)
		e.MinItems = tighterInt(e.MinItems, a.MinItems, +1)
		e.MaxItems = tighterInt(e.MaxItems, a.MaxItems, -1)
		e.MinProperties = tighterInt(e.MinProperties, a.MinProperties, +1)
		e.MaxProperties = tighterInt(e.MaxProperties, a.MaxProperties, -1)
		if a.Pattern != "" && a.Pattern != e.Pattern {
			if e.Pattern != "" {
				e.Pattern += " and " + a.Pattern
			} else {
				e.Pattern = a.Pattern
			}
		}
		if len(e.Enum) == 0 {
			e.Enum = a.Enum
		}
		if e.Format == "" {
			e.Format = a.Format
		}
		if e.Type == "" {
			e.Type = a.Type
		}
		e.XValidations = append(slices.Clone(e.XValidations), a.XValidations...)
	}
	return &e
}

func tighterFloat(a *float64, aExcl bool, b *float64, bExcl bool, dir int) (*float64, bool) {
	if t, _ := cmpFloat(a, aExcl, b, bExcl, dir); t {
		return b, bExcl
	}
	return a, aExcl
}

func tighterInt(a, b *int64, dir int) *int64 {
	if t, _ := cmpFloat(toFloat(a), false, toFloat(b), false, dir); t {
		return b
	}
	return a
}

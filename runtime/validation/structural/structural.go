package structural

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// Structural is a structural schema (as apiextensions-apiserver's schema.Structural): every node has a type
// (except under x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields as upstream allows), properties /
// items / additionalProperties, the value validations, and the x-kubernetes-* extensions.
//
// Build one with New, once per CRD version; a nil *Structural validates, prunes and defaults nothing. A Structural
// is never modified after New returns it, so it is safe for concurrent use by every request.
type Structural struct {
	typ      string
	nullable bool
	// dflt is the default value (decoded JSON) when hasDefault; a nil dflt with hasDefault is a null default,
	// which, as upstream's Default.Object == nil, is never applied.
	dflt       any
	hasDefault bool

	properties map[string]*Structural
	items      *Structural
	// additional is the additionalProperties schema, nil without one; additionalProperties: true is an empty
	// schema that keeps (and does not prune below) every value.
	additional *Structural

	preserveUnknownFields bool
	embeddedResource      bool
	intOrString           bool
	listType              string   // "", "atomic", "set" or "map"
	listMapKeys           []string // the keys of a list-type map

	// rules are the compiled x-kubernetes-validations of this node; anyRules tells whether this node or one
	// below it has rules. celSchema is the schema the rules' self and oldSelf are bound with (attachCELSchemas);
	// nil on nodes without rules.
	rules     []*rule
	anyRules  bool
	celSchema common.Schema
	// validator checks the value validations of the whole schema with kube-openapi, as kube-apiserver does;
	// set at the root only.
	validator *validate.SchemaValidator
}

// New parses and checks schema (the decoded openAPIV3Schema) and returns its structural form, or every violation of
// the structural rules as field errors under fldPath (e.g. spec.versions[0].schema.openAPIV3Schema), worded as
// kube-apiserver words them. The checks (see the package documentation for the full list) are those of
// apiextensions-apiserver's ValidateStructural ("must not be empty for specified object fields", "must be object at
// the root", "must not be used at the root", "must be empty to be structural", ...) and of its CRD schema
// validation ("additionalProperties and properties are mutual exclusive", "$ref is not supported", list types,
// defaults that do not validate or are not pruned, ...). It also compiles the x-kubernetes-validations (CEL)
// rules, reporting compile errors at their rule, as "compilation failed: <cel error>".
//
// The errors are sorted by field and detail. With errors the returned *Structural is nil.
func New(schema map[string]any, fldPath *field.Path) (*Structural, field.ErrorList) {
	p := &parser{}
	s := p.node(schema, rootLevel, fldPath)
	p.checkCompleteness(s, schema, fldPath)
	celErr := attachCELSchemas(s, schema) // before checkDefaults, whose rules bind defaults as values
	p.errs = append(p.errs, p.checkDefaults(s, schema, fldPath)...)
	if len(p.errs) > 0 {
		sortErrors(p.errs)
		return nil, p.errs
	}
	if celErr != nil {
		return nil, field.ErrorList{field.Invalid(fldPath, "", celErr.Error())}
	}
	v, err := newValidator(schema, "")
	if err != nil {
		return nil, field.ErrorList{field.Invalid(fldPath, "", err.Error())}
	}
	s.validator = v
	return s, nil
}

// Validate validates a custom resource obj (the whole object: apiVersion, kind, metadata, spec, status...) against s,
// as kube-apiserver's custom resource strategy does: ValidateSchema, then, when none of its errors is blocking
// (cel.Blocking), nor one noted in ctx (cel.WithPriorErrors), ValidateRules; when one is and s has rules, the rules are replaced by one
// field.Invalid(nil, nil, cel.NotCheckedMessage), as apiextensions' customResourceStrategy reports them.
//
// old is the stored object on update, nil on create. Errors are field.ErrorList with full paths ("spec.replicas")
// and kube's types (Invalid, Required, NotSupported, TooLong, TooMany, Duplicate ...), one per violation, worded as
// kube-apiserver's ("spec.replicas in body must be of type integer: \"string\""). Validate does not modify obj.
func (s *Structural) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := s.ValidateSchema(obj)
	if !s.HasRules() {
		return errs
	}
	if cel.Blocking(errs) || cel.PriorBlocking(ctx) {
		return append(errs, field.Invalid(nil, nil, cel.NotCheckedMessage))
	}
	return append(errs, s.ValidateRules(ctx, obj, old)...)
}

// ValidateSchema validates obj, a custom resource, against everything of s but its CEL rules:
//
//   - the OpenAPI value validations with kube-openapi's validator, as upstream (type, nullable, format, enum,
//     minimum/maximum and their exclusive forms, multipleOf, min/maxLength, pattern, min/maxItems, uniqueItems,
//     min/maxProperties, required, additionalProperties, allOf/anyOf/oneOf/not; x-kubernetes-int-or-string
//     accepts an integer or a string). metadata is validated only as far as the schema may restrict it: name and
//     generateName;
//   - x-kubernetes-embedded-resource values: apiVersion and kind are required and well-formed;
//   - x-kubernetes-list-type set (unique items) and map (unique x-kubernetes-list-map-keys).
//
// Errors as Validate's; a nil s reports none.
func (s *Structural) ValidateSchema(obj map[string]any) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := s.validateOpenAPI(obj)
	errs = append(errs, validateEmbedded(nil, obj, s, true)...)
	return append(errs, validateLists(nil, obj, s)...)
}

// ValidateRules evaluates the x-kubernetes-validations CEL rules of s on obj, with self the value and, for
// transition rules, oldSelf the value at the same place in old (object fields and additionalProperties by key,
// list-type map items by their keys; old is nil on create), bound as kube-apiserver binds them (see cel.JSON's
// Schema). It runs them whatever else is wrong with obj: callers gate it as Validate does. Errors are the rules'
// (origin cel.Origin); a nil s or one without rules reports none.
func (s *Structural) ValidateRules(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if s == nil || !s.HasRules() {
		return nil
	}
	var oldValue any
	if old != nil {
		oldValue = typed(old, s)
	}
	return s.validateRules(ctx, nil, typed(obj, s), oldValue, old != nil)
}

// HasRules reports whether s has x-kubernetes-validations rules at any node.
func (s *Structural) HasRules() bool { return s != nil && s.anyRules }

// Prune removes, in place, every field of obj the schema does not specify (keeping apiVersion, kind, metadata at the
// root and in embedded resources, and everything under x-kubernetes-preserve-unknown-fields), as upstream's
// structuralpruning.Prune; it returns the pruned fields' paths, sorted ("spec.foo", "status.x[1].y"), which the
// server reports for fieldValidation=Strict (400 `unknown field "spec.foo"`) and Warn (warnings). It returns nil
// when nothing was pruned.
func (s *Structural) Prune(obj map[string]any) []string {
	if s == nil {
		return nil
	}
	var pruned []string
	prune(obj, s, true, nil, &pruned)
	sortStrings(pruned)
	return pruned
}

// Default sets, in place, every schema default missing from obj, as upstream's structuraldefaulting.Default
// (defaults inside items and additionalProperties too; a default is a deep copy; only for absent fields, and for
// null ones unless nullable). Defaults are applied top-down, so a defaulted object gets its own fields' defaults.
//
// Like kube-apiserver's decoding of custom resources, Default first removes every null value whose schema is
// neither nullable nor has a default (upstream's PruneNonNullableNullsWithoutDefaults), so that `image: null`
// means "unset" rather than failing validation.
func (s *Structural) Default(obj map[string]any) {
	if s == nil {
		return
	}
	pruneNulls(obj, s)
	applyDefaults(obj, s)
}

// Type returns the OpenAPI type ("object", "array", "string", "integer", "number", "boolean") of the node at path,
// a list of property names with "[]" for array items and "*" for additionalProperties values (e.g.
// Type("spec", "ports", "[]", "port")); "" when the path is not in the schema or the node has no type
// (x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields). Type() is the root's type.
func (s *Structural) Type(path ...string) string {
	n := s
	for _, p := range path {
		switch {
		case n == nil:
			return ""
		case p == "[]":
			n = n.items
		case p == "*":
			n = n.additional
		default:
			n = n.properties[p]
		}
	}
	if n == nil {
		return ""
	}
	return n.typ
}

// Package validationmarkers registers the markers the validation generator
// (generators/validation) owns: controller-tools' +kubebuilder:validation:* markers,
// kube-openapi's +k8s:validation:<constraint> and Kubernetes' declarative validation tags
// (+k8s:<constraint>, +k8s:immutable, ...). The openapi and crd generators read the same
// markers from the model; by the owner rule (markers.Definition) they are registered here
// only. It is a package of its own, beside the generator, so that the loader can read the
// registrations without importing the generator (whose tests load API packages).
package validationmarkers

import (
	"strings"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "validation"

// constraint is one value constraint, registered as +kubebuilder:validation:<Name>,
// +k8s:validation:<name>, +kubebuilder:validation:items:<Name> and (unless noCodetag)
// +k8s:<name>.
type constraint struct {
	name      string
	apply     markers.ApplyFunc
	args      string // the argument's syntax, as markers.Definition.Args
	help      string // what the constraint does
	noCodetag bool   // validation-gen has no +k8s:<name> tag for it
}

// constraints are the value constraints under their controller-tools names.
var constraints = []constraint{
	{name: "Minimum", apply: markers.Float("minimum", func(v *model.Validation) **float64 { return &v.Minimum }),
		args: "=<number>", help: "The smallest value a number may have (inclusive unless ExclusiveMinimum)"},
	{name: "Maximum", apply: markers.Float("maximum", func(v *model.Validation) **float64 { return &v.Maximum }),
		args: "=<number>", help: "The largest value a number may have (inclusive unless ExclusiveMaximum)"},
	{name: "ExclusiveMinimum", apply: markers.ValidationFlag("exclusiveMinimum", func(v *model.Validation) *bool { return &v.ExclusiveMinimum }),
		args: "[=true]", help: "The Minimum itself is not allowed"},
	{name: "ExclusiveMaximum", apply: markers.ValidationFlag("exclusiveMaximum", func(v *model.Validation) *bool { return &v.ExclusiveMaximum }),
		args: "[=true]", help: "The Maximum itself is not allowed"},
	{name: "MinLength", apply: markers.Int("minLength", func(v *model.Validation) **int64 { return &v.MinLength }),
		args: "=<n>", help: "The fewest characters a string may have"},
	{name: "MaxLength", apply: markers.Int("maxLength", func(v *model.Validation) **int64 { return &v.MaxLength }),
		args: "=<n>", help: "The most characters a string may have"},
	{name: "MinItems", apply: markers.Int("minItems", func(v *model.Validation) **int64 { return &v.MinItems }),
		args: "=<n>", help: "The fewest items a list may have"},
	{name: "MaxItems", apply: markers.Int("maxItems", func(v *model.Validation) **int64 { return &v.MaxItems }),
		args: "=<n>", help: "The most items a list may have"},
	{name: "UniqueItems", apply: markers.ValidationFlag("uniqueItems", func(v *model.Validation) *bool { return &v.UniqueItems }),
		args: "[=true]", help: "A list's items must be unique", noCodetag: true},
	{name: "Pattern", apply: markers.ValidationString("pattern", func(v *model.Validation) *string { return &v.Pattern }),
		args: "=`<regexp>`", help: "A string must match the regular expression (ECMA 262, as kube-openapi)"},
	{name: "Format", apply: markers.ValidationString("format", func(v *model.Validation) *string { return &v.Format }),
		args: "=<format>", help: "A string must have the OpenAPI format (date-time, uuid, hostname, ...), as kube-openapi checks it"},
	{name: "Enum", apply: markers.Enum,
		args: "=a;b (or {a,b})", help: "The values allowed, on a field or a named type", noCodetag: true},
	{name: "MultipleOf", apply: markers.Float("multipleOf", func(v *model.Validation) **float64 { return &v.MultipleOf }),
		args: "=<number>", help: "A number must be a multiple of it"},
	{name: "MinProperties", apply: markers.Int("minProperties", func(v *model.Validation) **int64 { return &v.MinProperties }),
		args: "=<n>", help: "The fewest keys a map or object may have"},
	{name: "MaxProperties", apply: markers.Int("maxProperties", func(v *model.Validation) **int64 { return &v.MaxProperties }),
		args: "=<n>", help: "The most keys a map or object may have"},
}

// schemaFollowsGoType is why the schema-shaping markers of controller-tools do nothing here.
const schemaFollowsGoType = "apigen's schema follows the Go type"

// subresourceScoping is why validation-gen's subresource tags do nothing here.
const subresourceScoping = "validation-gen's subresource scoping is not generated"

// Register registers the validation generator's markers in reg.
func Register(reg *markers.Registry) {
	fieldOrType := markers.FieldLevel | markers.TypeLevel
	for _, c := range constraints {
		lower := strings.ToLower(c.name[:1]) + c.name[1:]
		kb := "kubebuilder:validation:" + c.name
		reg.MustRegister(
			markers.Definition{Name: kb, Level: fieldOrType, Owner: Owner, Apply: c.apply, Args: c.args,
				Help: c.help + "."},
			markers.Definition{Name: "k8s:validation:" + lower, Level: fieldOrType, Owner: Owner, Apply: c.apply, Args: c.args,
				Help: "kube-openapi's spelling of +" + kb + "."},
			markers.Definition{Name: "kubebuilder:validation:items:" + c.name, Level: fieldOrType, Owner: Owner, Apply: markers.Items(c.apply), Args: c.args,
				Help: "+" + kb + " for every item of a list."},
		)
		if !c.noCodetag {
			reg.MustRegister(markers.Definition{Name: "k8s:" + lower, Level: fieldOrType, Owner: Owner, Apply: c.apply, Args: c.args,
				Help: "validation-gen's spelling of +" + kb + "."})
		}
	}
	for _, o := range []struct{ name, how string }{{"AtMostOneOf", "at most one"}, {"ExactlyOneOf", "exactly one"}, {"AtLeastOneOf", "at least one"}} {
		reg.MustRegister(markers.Definition{Name: "kubebuilder:validation:" + o.name, Level: markers.TypeLevel, Owner: Owner,
			Apply: markers.OneOf(o.name),
			Args:  "={a,b}", Help: "Names JSON fields of which " + o.how + " must be set, as the CEL rule controller-tools writes."})
	}
	for _, name := range []string{"Type", "XIntOrString", "EmbeddedResource", "Schemaless", "XEmbeddedResource"} {
		reason := schemaFollowsGoType
		if name == "XIntOrString" {
			reason += " (use intstr.IntOrString)"
		}
		reg.MustRegister(markers.Definition{Name: "kubebuilder:validation:" + name, Level: fieldOrType, Owner: Owner,
			Unhonored: reason, Help: "Shapes controller-gen's schema; accepted with a warning, as apigen's schema follows the Go type."})
	}
	for _, name := range []string{"k8s:subresource", "k8s:supportsSubresource", "k8s:isSubresource"} {
		reg.MustRegister(markers.Definition{Name: name, Level: markers.PackageLevel | markers.TypeLevel, Owner: Owner,
			Unhonored: subresourceScoping, Help: "Scopes validation-gen's checks to a subresource; accepted with a warning."})
	}
	required := markers.Flag("required", func(m *model.Markers) *bool { return &m.Required })
	optional := markers.Flag("optional", func(m *model.Markers) *bool { return &m.Optional })
	reg.MustRegister(
		markers.Definition{Name: "kubebuilder:validation:Required", Level: markers.FieldLevel | markers.PackageLevel, Owner: Owner, Apply: required,
			Help: "The field is required (its JSON key present, not null); on a package, every field without +optional is."},
		markers.Definition{Name: "kubebuilder:validation:Optional", Level: markers.FieldLevel | markers.PackageLevel, Owner: Owner, Apply: optional,
			Help: "The field is optional; on a package, fields are optional unless marked required."},
		markers.Definition{Name: "kubebuilder:validation:Nullable", Level: markers.FieldLevel, Owner: Owner,
			Apply: markers.ValidationFlag("nullable", func(v *model.Validation) *bool { return &v.Nullable }),
			Help:  "controller-tools' spelling of +nullable: null is a valid value (nullable: true)."},
		markers.Definition{Name: "kubebuilder:validation:XValidation", Level: fieldOrType, Owner: Owner, Apply: markers.XValidation,
			Args: ":rule=<CEL>[,message=...][,messageExpression=...][,reason=...][,fieldPath=...][,optionalOldSelf=true]", Help: "A CEL rule the value must satisfy (x-kubernetes-validations)."},
		markers.Definition{Name: "kubebuilder:validation:XPreserveUnknownFields", Level: fieldOrType, Owner: Owner,
			Unhonored: "a typed server decodes into Go structs, which keep no unknown fields",
			Help:      "Keeps unknown fields in a CRD; accepted with a warning, as Go structs keep none."},
		markers.Definition{Name: "k8s:required", Level: markers.FieldLevel, Owner: Owner, Apply: markers.K8sRequired,
			Help: "validation-gen's required: the key is present and the value is not its zero value."},
		markers.Definition{Name: "k8s:optional", Level: markers.FieldLevel, Owner: Owner, Apply: optional,
			Help: "validation-gen's spelling of +optional."},
		markers.Definition{Name: "k8s:listType", Level: markers.FieldLevel, Owner: Owner,
			Apply: markers.String("listType", func(m *model.Markers) *string { return &m.ListType }),
			Args:  "=atomic|set|map", Help: "validation-gen's spelling of +listType."},
		markers.Definition{Name: "k8s:listMapKey", Level: markers.FieldLevel, Owner: Owner, Apply: markers.ListMapKey,
			Args: "=<key>", Help: "validation-gen's spelling of +listMapKey."},
		markers.Definition{Name: "k8s:enum", Level: markers.TypeLevel, Owner: Owner, Apply: markers.EnumMarker("k8s:enum"),
			Help: "On a string type: its constants are the values allowed, listed in the schema and checked."},
		markers.Definition{Name: "k8s:immutable", Level: markers.FieldLevel, Owner: Owner,
			Apply: markers.ValidationFlag("immutable", func(v *model.Validation) *bool { return &v.Immutable }),
			Help:  "The value cannot change on update."},
		markers.Definition{Name: "k8s:update", Level: markers.FieldLevel, Owner: Owner, Apply: markers.Update,
			Args: "=NoSet|NoUnset|NoModify|NoAddItem|NoRemoveItem", Help: "What an update may not do to the field (repeatable)."},
		markers.Definition{Name: "k8s:neq", Level: fieldOrType, Owner: Owner, Apply: markers.NEQ,
			Args: "=<value>", Help: "A value the field may not have (repeatable)."},
		markers.Definition{Name: "k8s:forbidden", Level: markers.FieldLevel, Owner: Owner,
			Apply: markers.ValidationFlag("forbidden", func(v *model.Validation) *bool { return &v.Forbidden }),
			Help:  "The field must not be set."},
		markers.Definition{Name: "k8s:unique", Level: markers.FieldLevel, Owner: Owner, Apply: markers.Unique,
			Args: "=set|map", Help: "A list's items are unique (by +listMapKey for map)."},
		markers.Definition{Name: "k8s:maxBytes", Level: fieldOrType, Owner: Owner,
			Apply: markers.Int("maxBytes", func(v *model.Validation) **int64 { return &v.MaxBytes }),
			Args:  "=<n>", Help: "The most bytes a string may have."},
		markers.Definition{Name: "k8s:eachVal", Level: fieldOrType, Owner: Owner,
			Apply: markers.Nested("k8s:eachVal", func(v *model.Validation) **model.Validation { return &v.Items }),
			Args:  "=+<marker>", Help: "The marker applies to every item of a list or value of a map."},
		markers.Definition{Name: "k8s:eachKey", Level: fieldOrType, Owner: Owner,
			Apply: markers.Nested("k8s:eachKey", func(v *model.Validation) **model.Validation { return &v.Keys }),
			Args:  "=+<marker>", Help: "The marker applies to every key of a map."},
		markers.Definition{Name: "k8s:unionMember", Level: markers.FieldLevel, Owner: Owner, Apply: markers.UnionMember,
			Args: "[(union: \"<name>\", memberName: \"<Value>\")]", Help: "The field is a member of a union, exactly one of which is set."},
		markers.Definition{Name: "k8s:zeroOrOneOfMember", Level: markers.FieldLevel, Owner: Owner, Apply: markers.ZeroOrOneOfMember,
			Args: "[(union: \"<name>\")]", Help: "The field is a member of a union of which at most one is set."},
		markers.Definition{Name: "k8s:unionDiscriminator", Level: markers.FieldLevel, Owner: Owner, Apply: markers.UnionDiscriminator,
			Args: "[(union: \"<name>\")]", Help: "The field names which member of the union is set."},
		markers.Definition{Name: "k8s:ifEnabled", Level: fieldOrType, Owner: Owner,
			Args: "(<Feature>)=+<marker>", Help: "The marker applies when the feature gate is on; apigen serves no feature gates and applies it always."},
		markers.Definition{Name: "k8s:ifDisabled", Level: fieldOrType, Owner: Owner,
			Args: "(<Feature>)=+<marker>", Help: "The marker applies when the feature gate is off; apigen applies it always."},
		markers.Definition{Name: "k8s:beta", Level: fieldOrType, Owner: Owner,
			Args: "(since: \"<version>\")=+<marker>", Help: "Beta declarative validation; the marker applies."},
		markers.Definition{Name: "k8s:alpha", Level: fieldOrType, Owner: Owner,
			Unhonored: "alpha declarative validation is not enforced by default in Kubernetes (its errors are shadowed); apigen does not enforce it",
			Args:      "(since: \"<version>\")=+<marker>", Help: "Alpha declarative validation, shadowed in Kubernetes; accepted with a warning."},
		markers.Definition{Name: "k8s:customUnique", Level: markers.FieldLevel, Owner: Owner,
			Unhonored: "apigen still checks the list's uniqueness",
			Help:      "Leaves a list's uniqueness to hand-written validation; accepted with a warning."},
		markers.Definition{Name: "k8s:opaqueType", Level: markers.FieldLevel, Owner: Owner,
			Unhonored: "apigen validates the type's own markers wherever it is used",
			Help:      "Skips the field's type's own validation; accepted with a warning."},
		markers.Definition{Name: "k8s:item", Level: markers.FieldLevel, Owner: Owner,
			Unhonored: "list-item scoped validation is not generated",
			Args:      "(<key>: <value>)=+<marker>", Help: "The marker applies to the list item with that key; accepted with a warning."},
		markers.Definition{Name: "k8s:validateFalse", Level: fieldOrType, Owner: Owner,
			Unhonored: "validation-gen's test tags are not generated", Help: "validation-gen's test tag that always fails; accepted with a warning."},
		markers.Definition{Name: "k8s:validateTrue", Level: fieldOrType, Owner: Owner,
			Unhonored: "validation-gen's test tags are not generated", Help: "validation-gen's test tag that always passes; accepted with a warning."},
		markers.Definition{Name: "k8s:declarativeValidationNative", Level: fieldOrType, Owner: Owner,
			Unhonored: "apigen's validation is always generated from the markers",
			Help:      "Says the declarative validation is the field's only one; accepted with a warning."},
		markers.Definition{Name: "k8s:validation:cel", Level: fieldOrType, Owner: Owner, Family: true,
			Unhonored: "kube-openapi's CEL tags are not generated; write +kubebuilder:validation:XValidation",
			Help:      "kube-openapi's CEL rule tags (+k8s:validation:cel[0]:rule>...); accepted with a warning."},
	)
}

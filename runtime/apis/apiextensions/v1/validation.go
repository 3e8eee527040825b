package v1

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	schema "github.com/apigen-dev/apigen/runtime/validation/structural"
)

var (
	// printerColumnTypes are the types of additionalPrinterColumns, as upstream's.
	printerColumnTypes = sets.New("integer", "number", "string", "boolean", "date")
	// printerColumnFormats are their formats, as upstream's.
	printerColumnFormats = sets.New("int32", "int64", "float", "double", "byte", "date", "date-time", "password")
)

// ValidateCustomResourceDefinition validates a CustomResourceDefinition on create (after
// the generated declarative validation), as apiextensions-apiserver's
// ValidateCustomResourceDefinition: the name is <plural>.<group>, the group, scope, names,
// versions (exactly one storage version, unique names, a structural schema each),
// subresources, printer columns, conversion and status.storedVersions, and the
// api-approved.kubernetes.io annotation for the k8s.io and kubernetes.io groups. Messages
// are kube's.
func ValidateCustomResourceDefinition(obj *CustomResourceDefinition) field.ErrorList {
	return append(validateCRD(obj, nil), validateAPIApproval(obj, nil)...)
}

// validateCRD is what create and update validate alike; old is the stored CRD on update, nil
// on create.
func validateCRD(obj, old *CustomResourceDefinition) field.ErrorList {
	var errs field.ErrorList
	if want := obj.Spec.Names.Plural + "." + obj.Spec.Group; obj.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), obj.Name, `must be spec.names.plural+"."+spec.group`))
	}
	errs = append(errs, validateSpec(&obj.Spec, old, field.NewPath("spec"))...)
	errs = append(errs, validateNames(&obj.Status.AcceptedNames, field.NewPath("status", "acceptedNames"))...)
	errs = append(errs, validateStoredVersions(obj.Status.StoredVersions, obj.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	return errs
}

// ValidateCustomResourceDefinitionUpdate validates an update as
// ValidateCustomResourceDefinition, and, as upstream, keeps group and names.plural (they make
// the name) and, once the definition is Established, scope and names.kind (they decide how
// objects are stored).
func ValidateCustomResourceDefinitionUpdate(obj, old *CustomResourceDefinition) field.ErrorList {
	errs := append(validateCRD(obj, old), validateAPIApproval(obj, old)...)
	spec, oldSpec, fld := &obj.Spec, &old.Spec, field.NewPath("spec")
	if IsConditionTrue(old, Established) {
		errs = append(errs, immutable(string(spec.Scope), string(oldSpec.Scope), fld.Child("scope"))...)
		errs = append(errs, immutable(spec.Names.Kind, oldSpec.Names.Kind, fld.Child("names", "kind"))...)
	}
	errs = append(errs, immutable(spec.Group, oldSpec.Group, fld.Child("group"))...)
	errs = append(errs, immutable(spec.Names.Plural, oldSpec.Names.Plural, fld.Child("names", "plural"))...)
	return errs
}

// validateStoredVersions checks status.storedVersions as upstream's
// ValidateCustomResourceDefinitionStoredVersions: not empty, listing the storage version, and
// every listed version still in spec.versions. The CRD strategy (runtime/apiextensions) keeps
// the storage version listed before validation runs.
func validateStoredVersions(stored []string, versions []CustomResourceDefinitionVersion, fld *field.Path) field.ErrorList {
	if len(stored) == 0 {
		return field.ErrorList{field.Invalid(fld, stored, "must have at least one stored version")}
	}
	var errs field.ErrorList
	for _, v := range versions {
		if v.Storage && !slices.Contains(stored, v.Name) {
			errs = append(errs, field.Invalid(fld, stored, "must have the storage version "+v.Name))
		}
	}
	for i, v := range stored {
		if !hasVersion(versions, v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, fmt.Sprintf(
				"missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
		}
	}
	return errs
}

// hasVersion reports whether versions has one named name.
func hasVersion(versions []CustomResourceDefinitionVersion, name string) bool {
	for _, v := range versions {
		if v.Name == name {
			return true
		}
	}
	return false
}

// immutable is apimachinery's ValidateImmutableField for strings.
func immutable(v, old string, fld *field.Path) field.ErrorList {
	if v != old {
		return field.ErrorList{field.Invalid(fld, v, "field is immutable")}
	}
	return nil
}

// validateSpec validates the spec as upstream's validateCustomResourceDefinitionSpec; old is
// the stored CRD on update, nil on create.
func validateSpec(spec *CustomResourceDefinitionSpec, old *CustomResourceDefinition, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case spec.Group == "":
		errs = append(errs, field.Required(fld.Child("group"), ""))
	case len(utilvalidation.IsDNS1123Subdomain(spec.Group)) > 0:
		errs = append(errs, field.Invalid(fld.Child("group"), spec.Group, strings.Join(utilvalidation.IsDNS1123Subdomain(spec.Group), ",")))
	case !strings.Contains(spec.Group, "."):
		errs = append(errs, field.Invalid(fld.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	switch spec.Scope {
	case "":
		errs = append(errs, field.Required(fld.Child("scope"), ""))
	case ClusterScoped, NamespaceScoped:
	default:
		errs = append(errs, field.NotSupported(fld.Child("scope"), spec.Scope, []ResourceScope{ClusterScoped, NamespaceScoped}))
	}
	errs = append(errs, validateVersions(spec.Versions, fld.Child("versions"))...)
	for _, n := range []struct{ name, value string }{{"plural", spec.Names.Plural}, {"singular", spec.Names.Singular},
		{"kind", spec.Names.Kind}, {"listKind", spec.Names.ListKind}} {
		if n.value == "" {
			errs = append(errs, field.Required(fld.Child("names", n.name), ""))
		}
	}
	errs = append(errs, validateNames(&spec.Names, fld.Child("names"))...)
	errs = append(errs, validateConversion(spec.Conversion, old, fld.Child("conversion"))...)
	if spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(fld.Child("preserveUnknownFields"), true,
			"cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return errs
}

// validateVersions checks the version list: at least one, unique DNS-1035 names, exactly one
// storage version, and each version's own fields.
func validateVersions(versions []CustomResourceDefinitionVersion, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(versions) == 0 {
		return field.ErrorList{field.Invalid(fld, versions, "must have exactly one version marked as storage version")}
	}
	storage, seen, unique := 0, map[string]bool{}, true
	for i := range versions {
		v := &versions[i]
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if msgs := utilvalidation.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fld.Index(i).Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		errs = append(errs, validateVersion(v, fld.Index(i))...)
	}
	if !unique {
		errs = append(errs, field.Invalid(fld, versions, "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(fld, versions, "must have exactly one version marked as storage version"))
	}
	return errs
}

// validateVersion checks one version: deprecation warning, a structural schema, subresources,
// printer columns and selectable fields.
func validateVersion(v *CustomResourceDefinitionVersion, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range deprecationWarningErrors(v.Deprecated, v.DeprecationWarning) {
		errs = append(errs, field.Invalid(fld.Child("deprecationWarning"), v.DeprecationWarning, msg))
	}
	schemaPath := fld.Child("schema", "openAPIV3Schema")
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		errs = append(errs, field.Required(schemaPath, ""))
	} else if _, serrs := StructuralSchema(v, schemaPath); len(serrs) > 0 {
		errs = append(errs, serrs...)
	}
	errs = append(errs, validateSubresources(v.Subresources, fld.Child("subresources"))...)
	for i := range v.AdditionalPrinterColumns {
		errs = append(errs, validateColumn(&v.AdditionalPrinterColumns[i], fld.Child("additionalPrinterColumns").Index(i))...)
	}
	errs = append(errs, validateSelectableFields(v, fld.Child("selectableFields"))...)
	return errs
}

// StructuralSchema returns the structural form of v's openAPIV3Schema (runtime/apiextensions/
// schema.New), with violations of the structural rules reported under fld; (nil, nil) when v
// has no schema.
func StructuralSchema(v *CustomResourceDefinitionVersion, fld *field.Path) (*schema.Structural, field.ErrorList) {
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(fld, err)}
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, field.ErrorList{field.InternalError(fld, err)}
	}
	return schema.New(generic, fld)
}

// deprecationWarningErrors checks a deprecation warning as upstream's validateDeprecationWarning.
func deprecationWarningErrors(deprecated bool, warning *string) []string {
	if warning == nil {
		return nil
	}
	if !deprecated {
		return []string{"can only be set for deprecated versions"}
	}
	var msgs []string
	if len(*warning) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if *warning == "" {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, r := range *warning {
		if !unicode.IsPrint(r) || unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
	}
	return msgs
}

// validateNames checks names as upstream's ValidateCustomResourceDefinitionNames.
func validateNames(names *CustomResourceDefinitionNames, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	label := func(child, value, prefix string, check string) {
		if value == "" {
			return
		}
		if msgs := utilvalidation.IsDNS1035Label(check); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fld.Child(child), value, prefix+strings.Join(msgs, ",")))
		}
	}
	label("plural", names.Plural, "", names.Plural)
	label("singular", names.Singular, "", names.Singular)
	const mixed = "may have mixed case, but should otherwise match: "
	label("kind", names.Kind, mixed, strings.ToLower(names.Kind))
	label("listKind", names.ListKind, mixed, strings.ToLower(names.ListKind))
	for i, s := range names.ShortNames {
		if msgs := utilvalidation.IsDNS1035Label(s); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fld.Child("shortNames").Index(i), s, strings.Join(msgs, ",")))
		}
	}
	if names.Kind != "" && names.Kind == names.ListKind {
		errs = append(errs, field.Invalid(fld.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range names.Categories {
		if msgs := utilvalidation.IsDNS1035Label(c); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fld.Child("categories").Index(i), c, strings.Join(msgs, ",")))
		}
	}
	return errs
}

// validateSubresources checks the scale paths as upstream's
// ValidateCustomResourceDefinitionSubresources.
func validateSubresources(s *CustomResourceSubresources, fld *field.Path) field.ErrorList {
	if s == nil || s.Scale == nil {
		return nil
	}
	var errs field.ErrorList
	under := func(path string, p *field.Path, prefixes []string, msg string) {
		if path == "" {
			errs = append(errs, field.Required(p, ""))
			return
		}
		if e := simpleJSONPath(path, p); len(e) > 0 {
			errs = append(errs, e...)
			return
		}
		for _, prefix := range prefixes {
			if strings.HasPrefix(path, prefix) {
				return
			}
		}
		errs = append(errs, field.Invalid(p, path, msg))
	}
	under(s.Scale.SpecReplicasPath, fld.Child("scale.specReplicasPath"), []string{".spec."}, "should be a json path under .spec")
	under(s.Scale.StatusReplicasPath, fld.Child("scale.statusReplicasPath"), []string{".status."}, "should be a json path under .status")
	if p := s.Scale.LabelSelectorPath; p != nil && *p != "" {
		under(*p, fld.Child("scale.labelSelectorPath"), []string{".spec.", ".status."}, "should be a json path under either .spec or .status")
	}
	return errs
}

// validateColumn checks a printer column as upstream's ValidateCustomResourceColumnDefinition.
func validateColumn(c *CustomResourceColumnDefinition, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	}
	types := "must be one of " + strings.Join(sets.List(printerColumnTypes), ",")
	switch {
	case c.Type == "":
		errs = append(errs, field.Required(fld.Child("type"), types))
	case !printerColumnTypes.Has(c.Type):
		errs = append(errs, field.Invalid(fld.Child("type"), c.Type, types))
	}
	if c.Format != "" && !printerColumnFormats.Has(c.Format) {
		errs = append(errs, field.Invalid(fld.Child("format"), c.Format, "must be one of "+strings.Join(sets.List(printerColumnFormats), ",")))
	}
	if c.JSONPath == "" {
		errs = append(errs, field.Required(fld.Child("JSONPath"), ""))
	} else {
		errs = append(errs, simpleJSONPath(c.JSONPath, fld.Child("JSONPath"))...)
	}
	return errs
}

// simpleJSONPath checks a dot-notation JSON path as upstream's validateSimpleJSONPath.
func simpleJSONPath(s string, fld *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(fld, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(fld, s, "must be a simple json path starting with .")}
	}
	return nil
}

// conversionRules returns upstream's validationOptions for the conversion: whether
// conversionReviewVersions must name a recognized version, and whether an invalid caBundle
// passes. On create (old nil) the first holds and the second not; on update of old, as
// upstream's ValidateCustomResourceDefinitionUpdate, a list without a recognized version
// passes when old's had none, and an invalid caBundle while old is not Established or old's
// was invalid too.
func conversionRules(old *CustomResourceDefinition) (requireRecognized, allowInvalidCABundle bool) {
	if old == nil {
		return true, false
	}
	c := old.Spec.Conversion
	var w *WebhookConversion
	if c != nil {
		w = c.Webhook
	}
	requireRecognized = w == nil || hasRecognizedReviewVersionOrEmpty(w.ConversionReviewVersions)
	switch {
	case !IsConditionTrue(old, Established):
		allowInvalidCABundle = true
	case w != nil && w.ClientConfig != nil && len(w.ClientConfig.CABundle) > 0:
		allowInvalidCABundle = len(admregv1.ValidateCABundle(field.NewPath("caBundle"), w.ClientConfig.CABundle)) > 0
	}
	return requireRecognized, allowInvalidCABundle
}

// reviewVersions are the ConversionReview versions the server sends, as upstream's
// acceptedConversionReviewVersions.
var reviewVersions = []string{"v1", "v1beta1"}

// hasRecognizedReviewVersionOrEmpty reports whether versions is empty or names v1 or v1beta1.
func hasRecognizedReviewVersionOrEmpty(versions []string) bool {
	return len(versions) == 0 || slices.ContainsFunc(versions, func(v string) bool { return slices.Contains(reviewVersions, v) })
}

// validateConversion checks the conversion as upstream's validateCustomResourceConversion:
// strategy None or Webhook; for Webhook a clientConfig with exactly one of url (https, no
// user, query or fragment) and service (name, namespace, port, path), a caBundle of PEM
// certificates, and conversionReviewVersions (unique DNS-1035 labels, at least one of v1 and
// v1beta1); for None neither. Field paths and messages are kube's, which names the fields
// after its internal type: spec.conversion.webhookClientConfig and
// spec.conversion.conversionReviewVersions.
func validateConversion(c *CustomResourceConversion, old *CustomResourceDefinition, fld *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	switch c.Strategy {
	case "":
		errs = append(errs, field.Required(fld.Child("strategy"), ""))
	case NoneConverter, WebhookConverter:
	default:
		errs = append(errs, field.NotSupported(fld.Child("strategy"), c.Strategy, []ConversionStrategyType{NoneConverter, WebhookConverter}))
	}
	var cc *WebhookClientConfig
	var versions []string
	if c.Webhook != nil {
		cc, versions = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	ccPath := fld.Child("webhookClientConfig")
	if c.Strategy != WebhookConverter {
		if cc != nil {
			errs = append(errs, field.Forbidden(ccPath, "should not be set when strategy is not set to Webhook"))
		}
		if len(versions) > 0 {
			errs = append(errs, field.Forbidden(fld.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
		}
		return errs
	}
	switch {
	case cc == nil:
		errs = append(errs, field.Required(ccPath, "required when strategy is set to Webhook"))
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, field.Required(ccPath, "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, admregv1.ValidateWebhookURL(ccPath.Child("url"), *cc.URL)...)
	default:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		errs = append(errs, admregv1.ValidateWebhookService(ccPath.Child("service"), cc.Service.Namespace, cc.Service.Name, cc.Service.Path, port)...)
	}
	requireRecognized, allowInvalidCABundle := conversionRules(old)
	if cc != nil && len(cc.CABundle) > 0 && !allowInvalidCABundle {
		errs = append(errs, admregv1.ValidateCABundle(ccPath.Child("caBundle"), cc.CABundle)...)
	}
	return append(errs, validateReviewVersions(versions, requireRecognized, fld.Child("conversionReviewVersions"))...)
}

// validateReviewVersions checks conversionReviewVersions as upstream's
// validateConversionReviewVersions.
func validateReviewVersions(versions []string, requireRecognized bool, fld *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(fld.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, msg))
		}
	}
	if requireRecognized && !hasRecognizedReviewVersionOrEmpty(versions) {
		errs = append(errs, field.Invalid(fld, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

// IsConditionTrue reports whether crd has condition t with status True.
func IsConditionTrue(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) bool {
	c := FindCondition(crd, t)
	return c != nil && c.Status == ConditionTrue
}

// FindCondition returns crd's condition of type t, or nil.
func FindCondition(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) *CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// SetCondition sets c on crd, replacing the condition of its type; LastTransitionTime is kept
// when the status does not change and set to now when it does (or when c has none), as
// upstream's apiextensionshelpers.SetCRDCondition.
func SetCondition(crd *CustomResourceDefinition, c CustomResourceDefinitionCondition) {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = metav1.Now()
	}
	old := FindCondition(crd, c.Type)
	if old == nil {
		crd.Status.Conditions = append(crd.Status.Conditions, c)
		return
	}
	if old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	*old = c
}

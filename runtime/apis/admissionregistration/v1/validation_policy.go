package v1

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	admissioncel "github.com/apigen-dev/apigen/runtime/admission/cel"
)

var (
	// supportedValidationReasons are the reasons a policy's validation may give.
	supportedValidationReasons = sets.New(string(metav1.StatusReasonUnauthorized), string(metav1.StatusReasonForbidden),
		string(metav1.StatusReasonInvalid), string(metav1.StatusReasonRequestEntityTooLarge))
	supportedValidationActions = sets.New(string(Deny), string(Warn), string(Audit))
)

// The limits of a policy's audit annotations, as kube's.
const (
	maxAuditAnnotations          = 20
	maxAuditAnnotationValueBytes = 5 * 1024
)

// ValidateValidatingAdmissionPolicy validates a policy, as kube-apiserver's
// ValidateValidatingAdmissionPolicy: failurePolicy, paramKind, matchConstraints (with
// resourceRules), matchConditions, variables, validations (or audit annotations) whose
// expressions compile in the policy's environment, messages and reasons. Messages are kube's.
func ValidateValidatingAdmissionPolicy(obj *ValidatingAdmissionPolicy) field.ErrorList {
	spec, fld := &obj.Spec, field.NewPath("spec")
	var errs field.ErrorList
	switch {
	case spec.FailurePolicy == nil:
		errs = append(errs, field.Required(fld.Child("failurePolicy"), ""))
	case !supportedFailurePolicies.Has(string(*spec.FailurePolicy)):
		errs = append(errs, field.NotSupported(fld.Child("failurePolicy"), *spec.FailurePolicy, sets.List(supportedFailurePolicies)))
	}
	opts := admissioncel.Options{HasAuthorizer: true}
	if spec.ParamKind != nil {
		opts.HasParams = true
		errs = append(errs, validateParamKind(spec.ParamKind, fld.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		errs = append(errs, field.Required(fld.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(spec.MatchConstraints, fld.Child("matchConstraints"))...)
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(fld.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	errs = append(errs, validateMatchConditions(spec.MatchConditions, opts, fld.Child("matchConditions"))...)
	compiler, err := admissioncel.NewCompiler(opts)
	if err != nil {
		return append(errs, field.InternalError(fld, err))
	}
	for i := range spec.Variables {
		errs = append(errs, validateVariable(compiler, &spec.Variables[i], fld.Child("variables").Index(i))...)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(fld.Child("validations"), msg), field.Required(fld.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		errs = append(errs, validateValidation(compiler, &spec.Validations[i], fld.Child("validations").Index(i))...)
	}
	return append(errs, validateAuditAnnotations(compiler, obj.Name, spec.AuditAnnotations, fld.Child("auditAnnotations"))...)
}

// ValidateValidatingAdmissionPolicyUpdate validates an update as a create.
func ValidateValidatingAdmissionPolicyUpdate(obj, _ *ValidatingAdmissionPolicy) field.ErrorList {
	return ValidateValidatingAdmissionPolicy(obj)
}

// validateParamKind validates a paramKind, as kube's: a group/version and a kind.
func validateParamKind(pk *ParamKind, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if pk.APIVersion == "" {
		errs = append(errs, field.Required(fld.Child("apiVersion"), ""))
	} else if gv, err := parseGroupVersion(pk.APIVersion); err != nil {
		errs = append(errs, field.Invalid(fld.Child("apiVersion"), pk.APIVersion, err.Error()))
	} else {
		if gv.Group != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(gv.Group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(fld.Child("apiVersion"), gv.Group, strings.Join(msgs, ",")))
			}
		}
		if gv.Version == "" {
			errs = append(errs, field.Invalid(fld.Child("apiVersion"), pk.APIVersion, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(gv.Version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fld.Child("apiVersion"), gv.Version, strings.Join(msgs, ",")))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, field.Required(fld.Child("kind"), ""))
	} else if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(fld.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// parseGroupVersion parses "group/version" or "version", as kube's parseGroupVersion.
func parseGroupVersion(gv string) (schema.GroupVersion, error) {
	if strings.Count(gv, "/") > 1 {
		return schema.GroupVersion{}, errors.New("unexpected GroupVersion string: " + gv)
	}
	if group, version, ok := strings.Cut(gv, "/"); ok {
		return schema.GroupVersion{Group: group, Version: version}, nil
	}
	return schema.GroupVersion{Version: gv}, nil
}

// validateMatchResources validates a policy's matchConstraints or a binding's
// matchResources, as kube's: defaulted matchPolicy and selectors, then the rules.
func validateMatchResources(mr *MatchResources, fld *field.Path) field.ErrorList {
	if mr == nil {
		return nil
	}
	var errs field.ErrorList
	switch {
	case mr.MatchPolicy == nil:
		errs = append(errs, field.Required(fld.Child("matchPolicy"), ""))
	case !supportedMatchPolicies.Has(string(*mr.MatchPolicy)):
		errs = append(errs, field.NotSupported(fld.Child("matchPolicy"), *mr.MatchPolicy, sets.List(supportedMatchPolicies)))
	}
	for _, sel := range []struct {
		name string
		s    *metav1.LabelSelector
	}{{"namespaceSelector", mr.NamespaceSelector}, {"objectSelector", mr.ObjectSelector}} {
		if sel.s == nil {
			errs = append(errs, field.Required(fld.Child(sel.name), ""))
		} else {
			errs = append(errs, metav1validation.ValidateLabelSelector(sel.s, metav1validation.LabelSelectorValidationOptions{}, fld.Child(sel.name))...)
		}
	}
	for i := range mr.ResourceRules {
		errs = append(errs, validateNamedRule(&mr.ResourceRules[i], fld.Child("resourceRules").Index(i))...)
	}
	for i := range mr.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&mr.ExcludeResourceRules[i], fld.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateNamedRule validates a rule and its unique, path-segment resource names.
func validateNamedRule(r *NamedRuleWithOperations, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, n := range r.ResourceNames {
		for _, msg := range path.ValidatePathSegmentName(n, false) {
			errs = append(errs, field.Invalid(fld.Child("resourceNames").Index(i), n, msg))
		}
		if names.Has(n) {
			errs = append(errs, field.Duplicate(fld.Child("resourceNames").Index(i), n))
		}
		names.Insert(n)
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, fld)...)
}

// validateVariable validates a variable's name (a CEL identifier) and compiles its
// expression into compiler, as kube's validateVariable.
func validateVariable(compiler *admissioncel.Compiler, v *Variable, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, field.Required(fld.Child("name"), "name is not specified"))
	} else if !admissioncel.IsIdentifier(v.Name) {
		errs = append(errs, field.Invalid(fld.Child("name"), v.Name, "name is not a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		return append(errs, field.Required(fld.Child("expression"), "expression is not specified"))
	}
	if err := compiler.AddVariable(v.Name, v.Expression); err != nil {
		errs = append(errs, field.Invalid(fld.Child("expression"), v.Expression, err.Error()))
	}
	return errs
}

// validateValidation validates one validation, as kube's validateValidation.
func validateValidation(compiler *admissioncel.Compiler, v *Validation, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(fld.Child("expression"), "expression is not specified"))
	} else if _, err := compiler.Compile(v.Expression, cel.BoolType); err != nil {
		errs = append(errs, field.Invalid(fld.Child("expression"), v.Expression, err.Error()))
	}
	switch msgExpr := strings.TrimSpace(v.MessageExpression); {
	case v.MessageExpression != "" && msgExpr == "":
		errs = append(errs, field.Invalid(fld.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	case msgExpr != "":
		if _, err := compiler.Compile(v.MessageExpression, cel.StringType); err != nil {
			errs = append(errs, field.Invalid(fld.Child("messageExpression"), v.MessageExpression, err.Error()))
		}
	}
	switch msg := strings.TrimSpace(v.Message); {
	case v.Message != "" && msg == "":
		errs = append(errs, field.Invalid(fld.Child("message"), v.Message, "message must be non-empty if specified"))
	case strings.ContainsAny(msg, "\r\n"):
		errs = append(errs, field.Invalid(fld.Child("message"), v.Message, "message must not contain line breaks"))
	}
	if v.Reason != nil && !supportedValidationReasons.Has(string(*v.Reason)) {
		errs = append(errs, field.NotSupported(fld.Child("reason"), *v.Reason, sets.List(supportedValidationReasons)))
	}
	return errs
}

// validateAuditAnnotations validates at most 20 audit annotations with unique keys that
// make qualified names "<policy>/<key>" and value expressions yielding a string or null.
func validateAuditAnnotations(compiler *admissioncel.Compiler, policy string, annotations []AuditAnnotation, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(annotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(fld, annotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := sets.New[string]()
	for i, a := range annotations {
		af := fld.Index(i)
		if policy == "" {
			errs = append(errs, field.Invalid(af.Child("key"), a.Key, "requires metadata.name be non-empty"))
		} else {
			for _, msg := range utilvalidation.IsQualifiedName(policy + "/" + a.Key) {
				errs = append(errs, field.Invalid(af.Child("key"), policy+"/"+a.Key, msg))
			}
		}
		switch value := strings.TrimSpace(a.ValueExpression); {
		case value == "":
			errs = append(errs, field.Required(af.Child("valueExpression"), "valueExpression is not specified"))
		case len(value) > maxAuditAnnotationValueBytes:
			errs = append(errs, field.TooLong(af.Child("valueExpression"), "", maxAuditAnnotationValueBytes))
		default:
			if _, err := compiler.Compile(value, cel.StringType, cel.NullType); err != nil {
				errs = append(errs, field.Invalid(af.Child("valueExpression"), value, err.Error()))
			}
		}
		if keys.Has(a.Key) {
			errs = append(errs, field.Duplicate(af.Child("key"), a.Key))
		}
		keys.Insert(a.Key)
	}
	return errs
}

// ValidateValidatingAdmissionPolicyBinding validates a binding, as kube-apiserver's
// ValidateValidatingAdmissionPolicyBinding (the generated validation checks the actions are
// unique). Messages are kube's, its field path "spec.matchResouces" included.
func ValidateValidatingAdmissionPolicyBinding(obj *ValidatingAdmissionPolicyBinding) field.ErrorList {
	spec, fld := &obj.Spec, field.NewPath("spec")
	var errs field.ErrorList
	if spec.PolicyName == "" {
		errs = append(errs, field.Required(fld.Child("policyName"), ""))
	} else {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			errs = append(errs, field.Invalid(fld.Child("policyName"), spec.PolicyName, msg))
		}
	}
	errs = append(errs, validateParamRef(spec.ParamRef, fld.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, fld.Child("matchResouces"))...)
	return append(errs, validateValidationActions(spec.ValidationActions, fld.Child("validationActions"))...)
}

// ValidateValidatingAdmissionPolicyBindingUpdate validates an update as a create.
func ValidateValidatingAdmissionPolicyBindingUpdate(obj, _ *ValidatingAdmissionPolicyBinding) field.ErrorList {
	return ValidateValidatingAdmissionPolicyBinding(obj)
}

// validateParamRef validates a paramRef, as kube's: exactly one of name and selector, a
// valid namespace, and parameterNotFoundAction.
func validateParamRef(pr *ParamRef, fld *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	const exclusive = `name and selector are mutually exclusive`
	if pr.Name != "" {
		for _, msg := range path.ValidatePathSegmentName(pr.Name, false) {
			errs = append(errs, field.Invalid(fld.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(fld.Child("name"), exclusive))
		}
	}
	if pr.Namespace != "" {
		for _, msg := range apivalidation.ValidateNamespaceName(pr.Namespace, false) {
			errs = append(errs, field.Invalid(fld.Child("namespace"), pr.Namespace, msg))
		}
	}
	switch {
	case pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "":
		errs = append(errs, field.Required(fld.Child("parameterNotFoundAction"), ""))
	case *pr.ParameterNotFoundAction != DenyAction && *pr.ParameterNotFoundAction != AllowAction:
		errs = append(errs, field.NotSupported(fld.Child("parameterNotFoundAction"), *pr.ParameterNotFoundAction, []string{string(DenyAction), string(AllowAction)}))
	}
	if pr.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(pr.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(fld.Child("selector"), exclusive))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(fld, `one of name or selector must be specified`))
	}
	return errs
}

// validateValidationActions requires known actions, not both Deny and Warn, as kube's.
func validateValidationActions(actions []ValidationAction, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, a := range actions {
		if !supportedValidationActions.Has(string(a)) {
			errs = append(errs, field.NotSupported(fld.Index(i), a, sets.List(supportedValidationActions)))
		}
		seen.Insert(string(a))
	}
	if seen.Has(string(Deny)) && seen.Has(string(Warn)) {
		errs = append(errs, field.Invalid(fld, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if seen.Len() == 0 {
		errs = append(errs, field.Required(fld, "at least one validation action is required"))
	}
	return errs
}

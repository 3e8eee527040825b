package v1

import (
	"crypto/x509"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/cel-go/cel"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	admissioncel "github.com/apigen-dev/apigen/runtime/admission/cel"
)

// The values kube-apiserver accepts, as its admissionregistration validation's sets.
var (
	supportedFailurePolicies = sets.New(string(Ignore), string(Fail))
	supportedMatchPolicies   = sets.New(string(Exact), string(Equivalent))
	supportedScopes          = sets.New(string(ClusterScope), string(NamespacedScope), string(AllScopes))
	supportedOperations      = sets.New(string(OperationAll), string(Create), string(Update), string(Delete), string(Connect))
	noSideEffectClasses      = sets.New(string(SideEffectClassNone), string(SideEffectClassNoneOnDryRun))
	supportedReinvocation    = sets.New(string(NeverReinvocationPolicy), string(IfNeededReinvocationPolicy))
	// acceptedReviewVersions are the AdmissionReview versions a webhook may list; the
	// server sends v1.
	acceptedReviewVersions = []string{"v1", "v1beta1"}
)

// maxMatchConditions is the most match conditions a webhook or policy may have.
const maxMatchConditions = 64

// ValidateValidatingWebhookConfiguration validates a configuration (after the generated
// declarative validation, which checks webhook names are unique), as kube-apiserver's
// ValidateValidatingWebhookConfiguration for admissionregistration.k8s.io/v1. Messages are
// kube's.
func ValidateValidatingWebhookConfiguration(obj *ValidatingWebhookConfiguration) field.ErrorList {
	var errs field.ErrorList
	for i := range obj.Webhooks {
		w := &obj.Webhooks[i]
		errs = append(errs, validateWebhook(webhookFields{name: w.Name, clientConfig: &w.ClientConfig, rules: w.Rules,
			failure: w.FailurePolicy, match: w.MatchPolicy, sideEffects: w.SideEffects, timeout: w.TimeoutSeconds,
			versions: w.AdmissionReviewVersions, conditions: w.MatchConditions},
			field.NewPath("webhooks").Index(i))...)
		errs = append(errs, validateSelector(w.NamespaceSelector, field.NewPath("webhooks").Index(i).Child("namespaceSelector"))...)
		errs = append(errs, validateSelector(w.ObjectSelector, field.NewPath("webhooks").Index(i).Child("objectSelector"))...)
	}
	return errs
}

// ValidateValidatingWebhookConfigurationUpdate validates an update as a create.
func ValidateValidatingWebhookConfigurationUpdate(obj, _ *ValidatingWebhookConfiguration) field.ErrorList {
	return ValidateValidatingWebhookConfiguration(obj)
}

// ValidateMutatingWebhookConfiguration validates a configuration as
// ValidateValidatingWebhookConfiguration, and each webhook's reinvocationPolicy.
func ValidateMutatingWebhookConfiguration(obj *MutatingWebhookConfiguration) field.ErrorList {
	var errs field.ErrorList
	for i := range obj.Webhooks {
		w := &obj.Webhooks[i]
		fld := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(webhookFields{name: w.Name, clientConfig: &w.ClientConfig, rules: w.Rules,
			failure: w.FailurePolicy, match: w.MatchPolicy, sideEffects: w.SideEffects, timeout: w.TimeoutSeconds,
			versions: w.AdmissionReviewVersions, conditions: w.MatchConditions}, fld)...)
		errs = append(errs, validateSelector(w.NamespaceSelector, fld.Child("namespaceSelector"))...)
		errs = append(errs, validateSelector(w.ObjectSelector, fld.Child("objectSelector"))...)
		if w.ReinvocationPolicy != nil && !supportedReinvocation.Has(string(*w.ReinvocationPolicy)) {
			errs = append(errs, field.NotSupported(fld.Child("reinvocationPolicy"), *w.ReinvocationPolicy, sets.List(supportedReinvocation)))
		}
	}
	return errs
}

// ValidateMutatingWebhookConfigurationUpdate validates an update as a create.
func ValidateMutatingWebhookConfigurationUpdate(obj, _ *MutatingWebhookConfiguration) field.ErrorList {
	return ValidateMutatingWebhookConfiguration(obj)
}

// webhookFields are the fields both webhook kinds validate alike.
type webhookFields struct {
	name         string
	clientConfig *WebhookClientConfig
	rules        []RuleWithOperations
	failure      *FailurePolicyType
	match        *MatchPolicyType
	sideEffects  *SideEffectClass
	timeout      *int32
	versions     []string
	conditions   []MatchCondition
}

// validateWebhook validates one webhook, as kube's validateValidatingWebhook.
func validateWebhook(w webhookFields, fld *field.Path) field.ErrorList {
	errs := utilvalidation.IsFullyQualifiedName(fld.Child("name"), w.name)
	for i := range w.rules {
		errs = append(errs, validateRuleWithOperations(&w.rules[i], fld.Child("rules").Index(i))...)
	}
	if w.failure != nil && !supportedFailurePolicies.Has(string(*w.failure)) {
		errs = append(errs, field.NotSupported(fld.Child("failurePolicy"), *w.failure, sets.List(supportedFailurePolicies)))
	}
	if w.match != nil && !supportedMatchPolicies.Has(string(*w.match)) {
		errs = append(errs, field.NotSupported(fld.Child("matchPolicy"), *w.match, sets.List(supportedMatchPolicies)))
	}
	switch {
	case w.sideEffects == nil:
		errs = append(errs, field.Required(fld.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(sets.List(noSideEffectClasses), ", "))))
	case !noSideEffectClasses.Has(string(*w.sideEffects)):
		errs = append(errs, field.NotSupported(fld.Child("sideEffects"), *w.sideEffects, sets.List(noSideEffectClasses)))
	}
	if w.timeout != nil && (*w.timeout > 30 || *w.timeout < 1) {
		errs = append(errs, field.Invalid(fld.Child("timeoutSeconds"), *w.timeout, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateClientConfig(w.clientConfig, fld.Child("clientConfig"))...)
	errs = append(errs, validateReviewVersions(w.versions, fld.Child("admissionReviewVersions"))...)
	return append(errs, validateMatchConditions(w.conditions, admissioncel.Options{HasAuthorizer: true}, fld.Child("matchConditions"))...)
}

// validateSelector validates a label selector, as kube's (values must be valid label values).
func validateSelector(s *metav1.LabelSelector, fld *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	return metav1validation.ValidateLabelSelector(s, metav1validation.LabelSelectorValidationOptions{}, fld)
}

// validateClientConfig requires exactly one of url and service, as kube.
func validateClientConfig(cc *WebhookClientConfig, fld *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(fld, "exactly one of url or service is required")}
	case cc.URL != nil:
		return ValidateWebhookURL(fld.Child("url"), *cc.URL)
	}
	port := int32(443)
	if cc.Service.Port != nil {
		port = *cc.Service.Port
	}
	return ValidateWebhookService(fld.Child("service"), cc.Service.Namespace, cc.Service.Name, cc.Service.Path, port)
}

// ValidateWebhookURL validates a webhook URL at fld, as k8s.io/apiserver's ValidateWebhookURL
// with https forced (admission and CRD conversion webhooks alike); messages are kube's.
func ValidateWebhookURL(fld *field.Path, raw string) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(fld, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(fld, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if len(u.Host) == 0 {
		errs = append(errs, field.Invalid(fld, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(fld, u.User.String(), "user information is not permitted in the URL"))
	}
	if len(u.Fragment) != 0 {
		errs = append(errs, field.Invalid(fld, u.Fragment, "fragments are not permitted in the URL"))
	}
	if len(u.RawQuery) != 0 {
		errs = append(errs, field.Invalid(fld, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// ValidateWebhookService validates a webhook service at fld, as k8s.io/apiserver's
// ValidateWebhookService: name, namespace, a valid port and a path of DNS-1123 subdomain
// segments; messages are kube's.
func ValidateWebhookService(fld *field.Path, namespace, name string, path *string, port int32) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, field.Required(fld.Child("namespace"), ""))
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(fld.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if path == nil || *path == "/" || *path == "" {
		return errs
	}
	p := *path
	if p == "//" {
		return append(errs, field.Invalid(fld.Child("path"), p, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(p, "/") {
		errs = append(errs, field.Invalid(fld.Child("path"), p, "must start with a '/'"))
	}
	for i, step := range strings.Split(strings.TrimSuffix(p[1:], "/"), "/") {
		if step == "" {
			errs = append(errs, field.Invalid(fld.Child("path"), p, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range utilvalidation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(fld.Child("path"), p, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// validateReviewVersions requires known, unique AdmissionReview versions, as kube's
// validateAdmissionReviewVersions.
func validateReviewVersions(versions []string, fld *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fld, fmt.Sprintf("must specify one of %v", strings.Join(acceptedReviewVersions, ", ")))}
	}
	var errs field.ErrorList
	seen, accepted := map[string]bool{}, false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(fld.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, msg))
		}
		accepted = accepted || v == "v1" || v == "v1beta1"
	}
	if !accepted {
		errs = append(errs, field.Invalid(fld, versions, fmt.Sprintf("must include at least one of %v", strings.Join(acceptedReviewVersions, ", "))))
	}
	return errs
}

// validateRuleWithOperations validates a rule, as kube's validateRuleWithOperations.
func validateRuleWithOperations(r *RuleWithOperations, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(fld.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && hasWildcard(r.Operations) {
		errs = append(errs, field.Invalid(fld.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !supportedOperations.Has(string(op)) {
			errs = append(errs, field.NotSupported(fld.Child("operations").Index(i), op, sets.List(supportedOperations)))
		}
	}
	return append(errs, validateRule(&r.Rule, fld)...)
}

// validateRule validates groups, versions, resources and scope, as kube's validateRule with
// subresources allowed.
func validateRule(r *Rule, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(fld.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && hasWildcard(r.APIGroups) {
		errs = append(errs, field.Invalid(fld.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(fld.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && hasWildcard(r.APIVersions) {
		errs = append(errs, field.Invalid(fld.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(fld.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, fld.Child("resources"))...)
	if r.Scope != nil && !supportedScopes.Has(string(*r.Scope)) {
		errs = append(errs, field.NotSupported(fld.Child("scope"), *r.Scope, sets.List(supportedScopes)))
	}
	return errs
}

func hasWildcard[S ~string](items []S) bool {
	for _, item := range items {
		if item == "*" {
			return true
		}
	}
	return false
}

// validateResources checks resource names and their wildcards, as kube's validateResources.
func validateResources(resources []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(fld, ""))
	}
	wildcardSub, wildcardRes := sets.New[string](), sets.New[string]()
	doubleWildcard, singleWildcard, plain := false, false, false
	for i, resSub := range resources {
		if resSub == "" {
			errs = append(errs, field.Required(fld.Index(i), ""))
			continue
		}
		doubleWildcard = doubleWildcard || resSub == "*/*"
		singleWildcard = singleWildcard || resSub == "*"
		res, sub, hasSub := strings.Cut(resSub, "/")
		if !hasSub {
			plain = resSub != "*"
			continue
		}
		if wildcardSub.Has(res) {
			errs = append(errs, field.Invalid(fld.Index(i), resSub, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, resSub)))
		}
		if wildcardRes.Has(sub) {
			errs = append(errs, field.Invalid(fld.Index(i), resSub, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, resSub)))
		}
		if sub == "*" {
			wildcardSub.Insert(res)
		}
		if res == "*" {
			wildcardRes.Insert(sub)
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, field.Invalid(fld, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && plain {
		errs = append(errs, field.Invalid(fld, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateMatchConditions validates at most 64 match conditions with qualified names and
// expressions that compile to a bool in the environment opts declares, as kube's
// validateMatchConditions (the generated validation checks the names are unique).
func validateMatchConditions(conditions []MatchCondition, opts admissioncel.Options, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conditions) > maxMatchConditions {
		errs = append(errs, field.TooMany(fld, len(conditions), maxMatchConditions))
	}
	for i, c := range conditions {
		cf := fld.Index(i)
		if expr := strings.TrimSpace(c.Expression); expr == "" {
			errs = append(errs, field.Required(cf.Child("expression"), ""))
		} else {
			errs = append(errs, compileExpression(expr, opts, cf.Child("expression"), cel.BoolType)...)
		}
		if c.Name == "" {
			errs = append(errs, field.Required(cf.Child("name"), ""))
		} else {
			for _, msg := range utilvalidation.IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(cf.Child("name"), c.Name, msg))
			}
		}
	}
	return errs
}

// compileExpression reports an expression that does not compile to one of want, at fld with
// kube's detail.
func compileExpression(expr string, opts admissioncel.Options, fld *field.Path, want ...*cel.Type) field.ErrorList {
	compiler, err := admissioncel.SharedCompiler(opts)
	if err != nil {
		return field.ErrorList{field.InternalError(fld, err)}
	}
	if _, err := compiler.Compile(expr, want...); err != nil {
		return field.ErrorList{field.Invalid(fld, expr, err.Error())}
	}
	return nil
}

// ValidateCABundle validates a webhook's caBundle at fld, as k8s.io/apiserver's
// ValidateCABundle: it must hold at least one PEM certificate (kube's message "unable to load
// root certificates: unable to parse bytes as PEM block").
func ValidateCABundle(fld *field.Path, caBundle []byte) field.ErrorList {
	if !x509.NewCertPool().AppendCertsFromPEM(caBundle) {
		return field.ErrorList{field.Invalid(fld, caBundle, "unable to load root certificates: unable to parse bytes as PEM block")}
	}
	return nil
}

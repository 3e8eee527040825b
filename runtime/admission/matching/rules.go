package matching

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

// namespaces is the core group's namespaces resource.
var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// IsNamespace reports whether a is about a Namespace object itself.
func IsNamespace(a *admission.Attributes) bool {
	return a.Resource.Group == "" && a.Resource.Resource == "namespaces" && a.Subresource == ""
}

// Namespace returns the namespace a is in for matching, as kube-apiserver's attributes carry
// it: the object's namespace, or for a Namespace object its own name.
func Namespace(a *admission.Attributes) string {
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		return a.Name
	}
	return a.Namespace
}

// RuleMatches reports whether rule matches a as if a were a request for resource (a.Resource,
// or an equivalent one), as kube's rules.Matcher.
func RuleMatches(rule *admregv1.RuleWithOperations, a *admission.Attributes, resource schema.GroupVersionResource) bool {
	return scopeMatches(rule.Scope, a, resource) && operationMatches(rule.Operations, a.Operation) &&
		exactOrWildcard(rule.APIGroups, resource.Group) && exactOrWildcard(rule.APIVersions, resource.Version) &&
		resourceMatches(rule.Resources, resource.Resource, a.Subresource)
}

func scopeMatches(scope *admregv1.ScopeType, a *admission.Attributes, resource schema.GroupVersionResource) bool {
	if scope == nil || *scope == admregv1.AllScopes {
		return true
	}
	isNamespace := resource == namespaces
	switch *scope {
	case admregv1.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case admregv1.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}

func operationMatches(ops []admregv1.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == admregv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func exactOrWildcard(items []string, requested string) bool {
	for _, item := range items {
		if item == "*" || item == requested {
			return true
		}
	}
	return false
}

func resourceMatches(resources []string, resource, subresource string) bool {
	for _, r := range resources {
		res, sub, _ := strings.Cut(r, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

// Match is what a webhook or policy that applies to a request sees: the resource and kind it
// matched (a's own, or an equivalent one under matchPolicy Equivalent).
type Match struct {
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

// MatchRules returns the first rule of rules matching a (each rule may carry object names, as
// policies' NamedRuleWithOperations; names nil matches every name), then, under matchPolicy
// Equivalent, the first matching one for an equivalent resource, as kube's ShouldCallHook and
// matchesResourceRules. ok is false when none matches. Errors: an equivalent resource whose
// kind res does not know (500 in kube's words "unable to convert to <gvr>: unknown kind").
func MatchRules(rules []NamedRule, policy *admregv1.MatchPolicyType, a *admission.Attributes, res admission.Resources) (m Match, ok bool, err error) {
	for _, r := range rules {
		if RuleMatches(r.Rule, a, a.Resource) && nameMatches(r.Names, a.Name) {
			return Match{Resource: a.Resource, Kind: a.Kind}, true, nil
		}
	}
	if policy == nil || *policy != admregv1.Equivalent || res == nil {
		return Match{}, false, nil
	}
	equivalents := res.EquivalentResourcesFor(a.Resource, a.Subresource)
	for _, r := range rules {
		for _, eq := range equivalents {
			if eq == a.Resource || !RuleMatches(r.Rule, a, eq) {
				continue
			}
			kind := res.KindFor(eq, a.Subresource)
			if kind.Empty() {
				return Match{}, false, fmt.Errorf("unable to convert to %v: unknown kind", eq)
			}
			if nameMatches(r.Names, a.Name) {
				return Match{Resource: eq, Kind: kind}, true, nil
			}
		}
	}
	return Match{}, false, nil
}

// NamedRule is a rule and, for policies, the object names it is limited to.
type NamedRule struct {
	Rule  *admregv1.RuleWithOperations
	Names []string
}

func nameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// IsExemptConfiguration reports whether a is a write of an admission configuration object
// (webhook configurations, policies and bindings), which no webhook or policy sees, as kube's
// IsExemptAdmissionConfigurationResource.
func IsExemptConfiguration(a *admission.Attributes) bool {
	if a.Kind.Group != admregv1.SchemeGroupVersion.Group {
		return false
	}
	switch a.Kind.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

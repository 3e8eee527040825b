package matching

import (
	"context"

	"github.com/apigen-dev/apigen/runtime/admission"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

// NamedRules returns rules as MatchRules takes them.
func NamedRules(rules []admregv1.NamedRuleWithOperations) []NamedRule {
	out := make([]NamedRule, len(rules))
	for i := range rules {
		out[i] = NamedRule{Rule: &rules[i].RuleWithOperations, Names: rules[i].ResourceNames}
	}
	return out
}

// MatchResources reports whether mr (a policy's matchConstraints or a binding's
// matchResources) selects a, as kube's policy matching.Matcher: its namespace and object
// selectors, then its excludeResourceRules (a match excludes), then its resourceRules (none
// means every resource, as for a binding that only narrows by selectors). The Match names
// the resource and kind matched. Errors: a namespace that does not exist or cannot be read, an
// invalid selector, an equivalent resource of unknown kind; selector errors count only when
// the rules match.
func MatchResources(ctx context.Context, mr *admregv1.MatchResources, a *admission.Attributes, res admission.Resources, ns NamespaceLabels) (Match, bool, error) {
	nsSel, err := Selector(mr.NamespaceSelector)
	if err != nil {
		return Match{}, false, err
	}
	nsMatch, nsErr := MatchNamespaceSelector(ctx, nsSel, a, ns)
	if !nsMatch && nsErr == nil {
		return Match{}, false, nil
	}
	objSel, err := Selector(mr.ObjectSelector)
	if err != nil {
		return Match{}, false, err
	}
	if !MatchObjectSelector(objSel, a) {
		return Match{}, false, nil
	}
	if _, excluded, err := MatchRules(NamedRules(mr.ExcludeResourceRules), mr.MatchPolicy, a, res); excluded || err != nil {
		return Match{}, false, err
	}
	m := Match{Resource: a.Resource, Kind: a.Kind}
	if len(mr.ResourceRules) > 0 {
		var ok bool
		if m, ok, err = MatchRules(NamedRules(mr.ResourceRules), mr.MatchPolicy, a, res); !ok || err != nil {
			return Match{}, false, err
		}
	}
	if nsErr != nil {
		return Match{}, false, nsErr
	}
	return m, true, nil
}

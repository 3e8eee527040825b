package rbac

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/apigen-dev/apigen/runtime/request"
)

// FullAuthority is what cluster-admin holds: every verb on every resource and path. Setting
// a ClusterRole's aggregationRule needs it, as kube's clusterrole policybased storage.
var FullAuthority = []PolicyRule{
	{Verbs: []string{All}, APIGroups: []string{All}, Resources: []string{All}},
	{Verbs: []string{All}, NonResourceURLs: []string{All}},
}

// ConfirmNoEscalation returns nil when p grants u in namespace ("" for cluster-wide) every
// rule of rules, else kube's error (pkg/registry/rbac/validation.ConfirmNoEscalation): `user
// "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not
// currently held:` and the missing rules, one per line, compacted and sorted. Rules are
// compared with k8s.io/component-helpers' Covers. u nil is an error ("no user on request").
func ConfirmNoEscalation(p *Policy, u *request.User, namespace string, rules []PolicyRule) error {
	if u == nil {
		return errors.New("no user on request")
	}
	covered, missing := validation.Covers(p.RulesFor(u, namespace), rules)
	if covered {
		return nil
	}
	var lines []string
	for _, r := range CompactRules(missing) {
		lines = append(lines, CompactString(r))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return fmt.Errorf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.Name, u.Groups, strings.Join(lines, "\n"))
}

// simpleResource is the key CompactRules merges rules by.
type simpleResource struct {
	group, resource string
	hasName         bool
	resourceName    string
}

// CompactRules merges rules naming one API group and one resource (and at most one resource
// name, and nothing else) that differ only by verb into one rule with their verbs, as kube's
// rbac validation.CompactRules; other rules are kept as they are. It suits the decomposed
// rules Covers reports missing.
func CompactRules(rules []PolicyRule) []PolicyRule {
	out := make([]PolicyRule, 0, len(rules))
	simple := map[simpleResource]int{} // index in out
	for _, r := range rules {
		key, ok := simpleKey(&r)
		if !ok {
			out = append(out, r)
			continue
		}
		i, seen := simple[key]
		if !seen {
			simple[key] = len(out)
			out = append(out, *r.DeepCopy())
			continue
		}
		for _, v := range r.Verbs {
			if !slices.Contains(out[i].Verbs, v) {
				out[i].Verbs = append(out[i].Verbs, v)
			}
		}
	}
	return out
}

// simpleKey returns the key of a rule with verbs, one API group, one resource, at most one
// resource name and nothing else.
func simpleKey(r *PolicyRule) (simpleResource, bool) {
	if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
		return simpleResource{}, false
	}
	key := simpleResource{group: r.APIGroups[0], resource: r.Resources[0]}
	if len(r.ResourceNames) == 1 {
		key.hasName, key.resourceName = true, r.ResourceNames[0]
	}
	return key, true
}

// CompactString renders r as kube's rbacv1helpers.CompactString does in escalation errors:
// `{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["delete"]}`, the empty
// lists left out.
func CompactString(r PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name   string
		values []string
	}{
		{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs},
		{"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs},
	} {
		if len(f.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.values))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

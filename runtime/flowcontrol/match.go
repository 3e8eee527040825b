package flowcontrol

import (
	"slices"
	"strings"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
	"github.com/apigen-dev/apigen/runtime/request"
)

// serviceAccountPrefix starts a service account's user name,
// "system:serviceaccount:<namespace>:<name>".
const serviceAccountPrefix = "system:serviceaccount:"

// matchesSchema reports whether a request of u and info matches one of fs's rules, as
// kube's flowcontrol matching: a rule matches when one of its subjects matches the user
// and one of its resource rules (for a resource request) or non-resource rules (otherwise)
// matches the request.
func matchesSchema(fs *flowcontrolv1.FlowSchema, u *request.User, info *request.RequestInfo) bool {
	for i := range fs.Spec.Rules {
		if matchesRule(&fs.Spec.Rules[i], u, info) {
			return true
		}
	}
	return false
}

// matchesRule reports whether rule matches the request.
func matchesRule(rule *flowcontrolv1.PolicyRulesWithSubjects, u *request.User, info *request.RequestInfo) bool {
	if !slices.ContainsFunc(rule.Subjects, func(s flowcontrolv1.Subject) bool { return matchesSubject(&s, u) }) {
		return false
	}
	if info.IsResourceRequest {
		return slices.ContainsFunc(rule.ResourceRules, func(r flowcontrolv1.ResourcePolicyRule) bool { return matchesResourceRule(&r, info) })
	}
	return slices.ContainsFunc(rule.NonResourceRules, func(r flowcontrolv1.NonResourcePolicyRule) bool {
		return matchesNonResourceRule(&r, info)
	})
}

// matchesSubject reports whether s names the user: a user by name ("*" any), a group the
// user is in ("*" any), or a service account by namespace and name ("*" any in the
// namespace).
func matchesSubject(s *flowcontrolv1.Subject, u *request.User) bool {
	switch s.Kind {
	case flowcontrolv1.SubjectKindUser:
		return s.User != nil && (s.User.Name == flowcontrolv1.NameAll || s.User.Name == u.Name)
	case flowcontrolv1.SubjectKindGroup:
		return s.Group != nil && (s.Group.Name == flowcontrolv1.NameAll || slices.Contains(u.Groups, s.Group.Name))
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return false
		}
		ns, name, ok := strings.Cut(strings.TrimPrefix(u.Name, serviceAccountPrefix), ":")
		if !ok || !strings.HasPrefix(u.Name, serviceAccountPrefix) || ns != s.ServiceAccount.Namespace {
			return false
		}
		return s.ServiceAccount.Name == flowcontrolv1.NameAll || s.ServiceAccount.Name == name
	}
	return false
}

// matchesResourceRule reports whether r matches a resource request: its verb, group and
// resource ("resource/subresource" for a subresource) are listed or "*" is; a request with
// a namespace needs that namespace or "*" listed, one without needs clusterScope.
func matchesResourceRule(r *flowcontrolv1.ResourcePolicyRule, info *request.RequestInfo) bool {
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	if !matchesWild(r.Verbs, flowcontrolv1.VerbAll, info.Verb) ||
		!matchesWild(r.APIGroups, flowcontrolv1.APIGroupAll, info.APIGroup) ||
		!matchesWild(r.Resources, flowcontrolv1.ResourceAll, resource) {
		return false
	}
	if info.Namespace == "" {
		return r.ClusterScope
	}
	return matchesWild(r.Namespaces, flowcontrolv1.NamespaceEvery, info.Namespace)
}

// matchesNonResourceRule reports whether r matches a non-resource request: its verb (the
// lower-case HTTP method) and path are listed, "*" is, or a listed "/prefix/*" covers the
// path.
func matchesNonResourceRule(r *flowcontrolv1.NonResourcePolicyRule, info *request.RequestInfo) bool {
	if !matchesWild(r.Verbs, flowcontrolv1.VerbAll, info.Verb) {
		return false
	}
	for _, p := range r.NonResourceURLs {
		if p == flowcontrolv1.NonResourceAll || p == info.Path {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(info.Path, prefix) {
			return true
		}
	}
	return false
}

// matchesWild reports whether list holds value or the wildcard all.
func matchesWild(list []string, all, value string) bool {
	return slices.Contains(list, all) || slices.Contains(list, value)
}

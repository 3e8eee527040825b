// Package rbac evaluates RBAC policy as kube-apiserver's RBAC authorizer
// (plugin/pkg/auth/authorizer/rbac): a request is allowed when a rule of a role bound to the
// user allows it: ClusterRoleBindings everywhere, RoleBindings in their namespace, a
// RoleBinding to a ClusterRole granting that role's rules in the binding's namespace only.
// There is no deny rule; RBAC never denies, it allows or has no opinion.
//
// The types here are the evaluation's view of rbac.authorization.k8s.io/v1; the served API
// types (runtime/apis/rbac/v1) convert to them. A PolicyRule is k8s.io/api's rbacv1.PolicyRule,
// so that k8s.io/component-helpers' Covers compares rules (escalation.go). Aggregated
// ClusterRoles are evaluated with the rules the aggregation controller (package aggregation)
// wrote into them, as in Kubernetes.
package rbac

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacapi "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
)

// All is the wildcard of verbs, apiGroups, resources and nonResourceURLs.
const All = "*"

// GroupName is the RBAC API group.
const GroupName = "rbac.authorization.k8s.io"

// PolicyRule is one rule, k8s.io/api's rbac/v1 PolicyRule: it allows Verbs on Resources (e.g.
// "databases", "databases/status", "*/scale", "*") of APIGroups ("" is the core group),
// limited to ResourceNames when not empty; or Verbs on NonResourceURLs ("/healthz", "/apis/*").
type PolicyRule = rbacapi.PolicyRule

// Subject is who a binding binds, as rbac/v1 Subject: Kind "User", "Group" or
// "ServiceAccount" (Namespace set).
type Subject struct {
	Kind      string
	Name      string
	Namespace string
}

// Role is a Role (Namespace set) or a ClusterRole (Namespace empty).
type Role struct {
	Namespace string
	Name      string
	Rules     []PolicyRule
}

// RoleRef names the role a binding grants: Kind "Role" (in the binding's namespace) or
// "ClusterRole".
type RoleRef struct {
	Kind string
	Name string
}

// Binding is a RoleBinding (Namespace set) or a ClusterRoleBinding (Namespace empty).
type Binding struct {
	Namespace string
	Name      string
	RoleRef   RoleRef
	Subjects  []Subject
}

// Policy is a set of roles and bindings, as listed from storage at one moment.
type Policy struct {
	Roles    []Role
	Bindings []Binding
}

// PolicySource returns the current policy; the served RBAC API's storage is one.
type PolicySource interface {
	Policy(ctx context.Context) (*Policy, error)
}

// StaticPolicy is a PolicySource that always returns the same policy.
type StaticPolicy Policy

// Policy implements PolicySource.
func (p *StaticPolicy) Policy(context.Context) (*Policy, error) { return (*Policy)(p), nil }

// Authorizer returns the RBAC authorizer over source (--authorization-mode=RBAC). It allows
// or has no opinion; the reason of no opinion names a policy it could not read. It is also
// an authorization.RuleResolver (SelfSubjectRulesReview): the rules bound to a user.
func Authorizer(source PolicySource) authorization.Authorizer {
	return &authorizer{source: source}
}

// authorizer is Authorizer's result.
type authorizer struct {
	source PolicySource
}

// Authorize implements authorization.Authorizer.
func (z *authorizer) Authorize(ctx context.Context, a authorization.Attributes) (authorization.Decision, string, error) {
	p, err := z.source.Policy(ctx)
	if err != nil {
		return authorization.NoOpinion, "", fmt.Errorf("cannot read RBAC policy: %w", err)
	}
	if reason, ok := p.allowedBy(a); ok {
		return authorization.Allow, reason, nil
	}
	return authorization.NoOpinion, "", nil
}

// RulesFor implements authorization.RuleResolver, as kube's RBACAuthorizer.RulesFor: every
// rule bound to u in namespace, split into resource and non-resource rules; never incomplete.
func (z *authorizer) RulesFor(ctx context.Context, u *request.User, namespace string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	p, err := z.source.Policy(ctx)
	if err != nil {
		return nil, nil, false, fmt.Errorf("cannot read RBAC policy: %w", err)
	}
	var resource []authorization.ResourceRule
	var nonResource []authorization.NonResourceRule
	for _, r := range p.RulesFor(u, namespace) {
		if len(r.Resources) > 0 {
			resource = append(resource, authorization.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups,
				Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			nonResource = append(nonResource, authorization.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	return resource, nonResource, false, nil
}

// Allows reports whether a rule of a role bound to a.User, where a applies, allows a.
func (p *Policy) Allows(a authorization.Attributes) bool {
	_, ok := p.allowedBy(a)
	return ok
}

// allowedBy reports whether p allows a, and by which binding, in kube's words: `RBAC:
// allowed by ClusterRoleBinding "admins" of ClusterRole "cluster-admin" to Group
// "system:masters"`, or `RBAC: allowed by RoleBinding "bob-reads/team-a" of Role "reader"
// to User "bob"`.
func (p *Policy) allowedBy(a authorization.Attributes) (string, bool) {
	reason := ""
	p.visit(a.User, a.Namespace, func(b *Binding, s *Subject, rule *PolicyRule) bool {
		if !RuleAllows(a, rule) {
			return true
		}
		kind, name := "ClusterRoleBinding", b.Name
		if b.Namespace != "" {
			kind, name = "RoleBinding", b.Name+"/"+b.Namespace
		}
		subject := s.Name
		if s.Kind == "ServiceAccount" {
			subject += "/" + s.Namespace
		}
		reason = fmt.Sprintf("RBAC: allowed by %s %q of %s %q to %s %q", kind, name, b.RoleRef.Kind, b.RoleRef.Name, s.Kind, subject)
		return false
	})
	return reason, reason != ""
}

// RulesFor returns every rule of every role bound to u that applies in namespace, as kube's
// DefaultRuleResolver.RulesFor: those granted by ClusterRoleBindings and, when namespace is
// not "", by RoleBindings in namespace. A binding to a missing role grants nothing.
func (p *Policy) RulesFor(u *request.User, namespace string) []PolicyRule {
	var out []PolicyRule
	p.visit(u, namespace, func(_ *Binding, _ *Subject, rule *PolicyRule) bool {
		out = append(out, *rule)
		return true
	})
	return out
}

// visit calls f with each rule of each role bound to u (nil: none) in namespace ("": by
// ClusterRoleBindings only), with the binding and its first subject naming u, in binding
// order, until f returns false.
func (p *Policy) visit(u *request.User, namespace string, f func(*Binding, *Subject, *PolicyRule) bool) {
	if u == nil {
		return
	}
	for i := range p.Bindings {
		b := &p.Bindings[i]
		if b.Namespace != "" && b.Namespace != namespace {
			continue // a RoleBinding grants only in its namespace
		}
		j := slices.IndexFunc(b.Subjects, func(s Subject) bool { return appliesTo(s, u) })
		if j < 0 {
			continue
		}
		role := p.role(*b)
		if role == nil {
			continue // a binding to a missing role grants nothing
		}
		for k := range role.Rules {
			if !f(b, &b.Subjects[j], &role.Rules[k]) {
				return
			}
		}
	}
}

// RoleRules returns the rules of the role ref names for a binding in namespace ("" for a
// ClusterRoleBinding), as kube's GetRoleReferenceRules. Errors: a NotFound
// (`roles.rbac.authorization.k8s.io "x" not found`) for a missing role; an unknown kind.
func (p *Policy) RoleRules(ref RoleRef, namespace string) ([]PolicyRule, error) {
	resource := "clusterroles"
	switch ref.Kind {
	case "Role":
		resource = "roles"
	case "ClusterRole":
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
	if role := p.role(Binding{Namespace: namespace, RoleRef: ref}); role != nil {
		return role.Rules, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: GroupName, Resource: resource}, ref.Name)
}

// role resolves b's RoleRef: a Role in b's namespace or a ClusterRole.
func (p *Policy) role(b Binding) *Role {
	ns := ""
	switch b.RoleRef.Kind {
	case "Role":
		if b.Namespace == "" {
			return nil // a ClusterRoleBinding cannot refer to a Role
		}
		ns = b.Namespace
	case "ClusterRole":
	default:
		return nil
	}
	for i := range p.Roles {
		if r := &p.Roles[i]; r.Namespace == ns && r.Name == b.RoleRef.Name {
			return r
		}
	}
	return nil
}

// appliesTo reports whether s names u, as kube's RBAC appliesToUser.
func appliesTo(s Subject, u *request.User) bool {
	switch s.Kind {
	case "User":
		return s.Name == u.Name
	case "Group":
		return u.InGroup(s.Name)
	case "ServiceAccount":
		return s.Namespace != "" && u.Name == "system:serviceaccount:"+s.Namespace+":"+s.Name
	}
	return false
}

// RuleAllows reports whether rule allows a, as kube's rbac.RuleAllows: for a resource
// request the verb, API group, resource ("databases/status", with "*/status" matching any
// resource's status subresource) and name (when the rule lists names) all match; for a
// non-resource request the verb and the path ("/apis/*" matching by prefix) match.
func RuleAllows(a authorization.Attributes, rule *PolicyRule) bool {
	if !matches(rule.Verbs, a.Verb) {
		return false
	}
	if !a.IsResourceRequest {
		return slices.ContainsFunc(rule.NonResourceURLs, func(u string) bool {
			return u == All || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimSuffix(u, "*")))
		})
	}
	if !matches(rule.APIGroups, a.APIGroup) {
		return false
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	resourceOK := slices.ContainsFunc(rule.Resources, func(r string) bool {
		return r == All || r == resource || (a.Subresource != "" && r == "*/"+a.Subresource)
	})
	return resourceOK && (len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name))
}

// matches reports whether values holds v or the wildcard.
func matches(values []string, v string) bool {
	return slices.Contains(values, All) || slices.Contains(values, v)
}

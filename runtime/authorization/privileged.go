package authorization

import (
	"context"
	"slices"

	"github.com/apigen-dev/apigen/runtime/request"
)

// PrivilegedGroups allows every request of a user in one of groups and has no opinion on
// the others, as k8s.io/apiserver's authorizerfactory.NewPrivilegedGroups, which
// kube-apiserver puts before every --authorization-mode for system:masters: the server's own
// loopback requests (auth.Loopback) and the admin certificate are then allowed whatever the
// modes, before RBAC's bootstrap policy exists.
func PrivilegedGroups(groups ...string) Authorizer { return privilegedGroups(groups) }

type privilegedGroups []string

// member reports whether u is in one of the groups.
func (g privilegedGroups) member(u *request.User) bool {
	return u != nil && slices.ContainsFunc(g, u.InGroup)
}

// Authorize implements Authorizer.
func (g privilegedGroups) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if g.member(a.User) {
		return Allow, "", nil
	}
	return NoOpinion, "", nil
}

// RulesFor implements RuleResolver: everything for a member, nothing otherwise.
func (g privilegedGroups) RulesFor(_ context.Context, u *request.User, _ string) ([]ResourceRule, []NonResourceRule, bool, error) {
	if g.member(u) {
		return everything, everythingNonResource, false, nil
	}
	return nil, nil, false, nil
}

package authorization

import (
	"context"
	"errors"

	"github.com/apigen-dev/apigen/runtime/request"
)

// ResourceRule is a rule a user holds on resources, as k8s.io/apiserver's
// authorizer.ResourceRuleInfo: Verbs on Resources of APIGroups, limited to ResourceNames when
// not empty; "*" is every value.
type ResourceRule struct {
	Verbs         []string
	APIGroups     []string
	Resources     []string
	ResourceNames []string
}

// NonResourceRule is a rule a user holds on non-resource paths, as k8s.io/apiserver's
// authorizer.NonResourceRuleInfo: Verbs on NonResourceURLs ("/healthz", "/apis/*").
type NonResourceRule struct {
	Verbs           []string
	NonResourceURLs []string
}

// RuleResolver lists the rules a user holds in a namespace, as k8s.io/apiserver's
// authorizer.RuleResolver (SelfSubjectRulesReview reads it). incomplete reports that the
// resolver cannot list everything the authorizer would allow (a webhook); err a failure to
// read what it can, the rules then being those it could read.
type RuleResolver interface {
	RulesFor(ctx context.Context, u *request.User, namespace string) (resource []ResourceRule, nonResource []NonResourceRule, incomplete bool, err error)
}

// RulesFor asks z for the rules of u in namespace when z is a RuleResolver; an authorizer
// that is not one (Webhook) lists nothing and is incomplete, as kube's webhook authorizer.
func RulesFor(ctx context.Context, z Authorizer, u *request.User, namespace string) ([]ResourceRule, []NonResourceRule, bool, error) {
	if r, ok := z.(RuleResolver); ok {
		return r.RulesFor(ctx, u, namespace)
	}
	return nil, nil, true, nil
}

// everything is the rule set of an authorizer allowing everything.
var (
	everything            = []ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}}
	everythingNonResource = []NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}
)

// RulesFor implements RuleResolver: everything.
func (alwaysAllow) RulesFor(context.Context, *request.User, string) ([]ResourceRule, []NonResourceRule, bool, error) {
	return everything, everythingNonResource, false, nil
}

// RulesFor implements RuleResolver: nothing, completely.
func (alwaysDeny) RulesFor(context.Context, *request.User, string) ([]ResourceRule, []NonResourceRule, bool, error) {
	return nil, nil, false, nil
}

// RulesFor implements RuleResolver: the rules of every member, incomplete when one is, the
// errors joined, as kube's unionAuthzRulesHandler.
func (u union) RulesFor(ctx context.Context, user *request.User, namespace string) ([]ResourceRule, []NonResourceRule, bool, error) {
	var resource []ResourceRule
	var nonResource []NonResourceRule
	var errs []error
	incomplete := false
	for _, z := range u {
		r, n, inc, err := RulesFor(ctx, z, user, namespace)
		resource, nonResource = append(resource, r...), append(nonResource, n...)
		incomplete = incomplete || inc
		if err != nil {
			errs = append(errs, err)
		}
	}
	return resource, nonResource, incomplete, errors.Join(errs...)
}

package authorization

import (
	"context"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/apigen-dev/apigen/runtime/request"
)

// WantsAuthorizer is an admission plugin that asks the server's authorizer (the authorizer
// variable of CEL expressions), as kube's admission/initializer.WantsAuthorizer: the server
// calls SetAuthorizer once, before serving. It lives here, not in runtime/admission, so that
// the admission chain the registry runs needs no authorizer.
type WantsAuthorizer interface {
	SetAuthorizer(authz Authorizer)
}

// CELAuthorizer adapts the server's authorizer to the one Kubernetes' authz CEL library asks
// (authorizer.group(”).resource('pods').check('create')); nil gives nil.
func CELAuthorizer(a Authorizer) authorizer.UnconditionalAuthorizer {
	if a == nil {
		return nil
	}
	return celAuthorizer{a}
}

type celAuthorizer struct{ authz Authorizer }

// Authorize asks the server's authorizer about attrs.
func (z celAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var u *request.User
	if info := attrs.GetUser(); info != nil {
		u = &request.User{Name: info.GetName(), UID: info.GetUID(), Groups: info.GetGroups(), Extra: info.GetExtra()}
	}
	d, reason, err := z.authz.Authorize(ctx, Attributes{User: u, RequestInfo: request.RequestInfo{
		IsResourceRequest: attrs.IsResourceRequest(), Path: attrs.GetPath(), Verb: attrs.GetVerb(),
		APIGroup: attrs.GetAPIGroup(), APIVersion: attrs.GetAPIVersion(), Namespace: attrs.GetNamespace(),
		Resource: attrs.GetResource(), Subresource: attrs.GetSubresource(), Name: attrs.GetName(),
	}})
	switch d {
	case Allow:
		return authorizer.DecisionAllow, reason, err
	case Deny:
		return authorizer.DecisionDeny, reason, err
	}
	return authorizer.DecisionNoOpinion, reason, err
}

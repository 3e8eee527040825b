package cel

import (
	"context"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
)

// Authorizer adapts the server's authorizer to the one Kubernetes' authz CEL library asks
// (authorizer.group(”).resource('pods').check('create')); nil gives nil.
func Authorizer(a authorization.Authorizer) authorizer.UnconditionalAuthorizer {
	if a == nil {
		return nil
	}
	return authorizerAdapter{a}
}

type authorizerAdapter struct{ authz authorization.Authorizer }

// Authorize asks the server's authorizer about attrs.
func (z authorizerAdapter) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var u *request.User
	if info := attrs.GetUser(); info != nil {
		u = &request.User{Name: info.GetName(), UID: info.GetUID(), Groups: info.GetGroups(), Extra: info.GetExtra()}
	}
	d, reason, err := z.authz.Authorize(ctx, authorization.Attributes{User: u, RequestInfo: request.RequestInfo{
		IsResourceRequest: attrs.IsResourceRequest(), Path: attrs.GetPath(), Verb: attrs.GetVerb(),
		APIGroup: attrs.GetAPIGroup(), APIVersion: attrs.GetAPIVersion(), Namespace: attrs.GetNamespace(),
		Resource: attrs.GetResource(), Subresource: attrs.GetSubresource(), Name: attrs.GetName(),
	}})
	switch d {
	case authorization.Allow:
		return authorizer.DecisionAllow, reason, err
	case authorization.Deny:
		return authorizer.DecisionDeny, reason, err
	}
	return authorizer.DecisionNoOpinion, reason, err
}

// UserInfo returns u as Kubernetes' user.Info (nil for nil).
func UserInfo(u *request.User) user.Info {
	if u == nil {
		return &user.DefaultInfo{}
	}
	return &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

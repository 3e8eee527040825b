package review

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	authzv1 "github.com/apigen-dev/apigen/runtime/apis/authorization/v1"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
)

// Install makes the create-only stores of info (the authorization.k8s.io group) answer with
// z, the server's authorizer. Errors: info lacks one of the four reviews.
func Install(info *registry.APIGroupInfo, z authorization.Authorizer) error {
	handlers := map[string]func(context.Context, runtime.Object) (runtime.Object, error){
		"selfsubjectaccessreviews": func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return selfSubjectAccessReview(ctx, z, obj)
		},
		"subjectaccessreviews": func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return subjectAccessReview(ctx, z, obj)
		},
		"localsubjectaccessreviews": func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return localSubjectAccessReview(ctx, z, obj)
		},
		"selfsubjectrulesreviews": func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return selfSubjectRulesReview(ctx, z, obj)
		},
	}
	for resource, respond := range handlers {
		s, ok := info.VersionedResourcesStorageMap["v1"][resource].(*registry.CreateOnlyStore)
		if !ok {
			return fmt.Errorf("the authorization.k8s.io group serves no %s", resource)
		}
		s.Respond = respond
	}
	return nil
}

// selfSubjectAccessReview answers whether the requesting user may do what the spec says, as
// kube's selfsubjectaccessreview REST.
func selfSubjectAccessReview(ctx context.Context, z authorization.Authorizer, obj runtime.Object) (runtime.Object, error) {
	review := obj.(*authzv1.SelfSubjectAccessReview)
	u, err := requestUser(ctx)
	if err != nil {
		return nil, err
	}
	review.Status = decide(ctx, z, attributes(u, review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes))
	return review, nil
}

// subjectAccessReview answers for the user the spec names, as kube's subjectaccessreview REST.
func subjectAccessReview(ctx context.Context, z authorization.Authorizer, obj runtime.Object) (runtime.Object, error) {
	review := obj.(*authzv1.SubjectAccessReview)
	review.Status = decide(ctx, z, attributes(specUser(&review.Spec), review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes))
	return review, nil
}

// localSubjectAccessReview is subjectAccessReview in the request's namespace, as kube's
// localsubjectaccessreview REST.
func localSubjectAccessReview(ctx context.Context, z authorization.Authorizer, obj runtime.Object) (runtime.Object, error) {
	review := obj.(*authzv1.LocalSubjectAccessReview)
	namespace := request.NamespaceValue(ctx)
	if namespace == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", namespace))
	}
	if namespace != review.Namespace {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", namespace))
	}
	review.Status = decide(ctx, z, attributes(specUser(&review.Spec), review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes))
	return review, nil
}

// requestUser is the request's user; 400 without one, as kube's reviews.
func requestUser(ctx context.Context) (*request.User, error) {
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	return u, nil
}

// specUser is the user a SubjectAccessReviewSpec names, as kube's
// AuthorizationAttributesFrom: no group is added.
func specUser(spec *authzv1.SubjectAccessReviewSpec) *request.User {
	u := &request.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if len(spec.Extra) > 0 {
		u.Extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// attributes are what the review asks about, as kube's ResourceAttributesFrom (an empty
// version is every version, "*") and NonResourceAttributesFrom.
func attributes(u *request.User, ra *authzv1.ResourceAttributes, nra *authzv1.NonResourceAttributes) authorization.Attributes {
	a := authorization.Attributes{User: u}
	if ra != nil {
		version := ra.Version
		if version == "" {
			version = "*"
		}
		a.RequestInfo = request.RequestInfo{IsResourceRequest: true, Verb: ra.Verb, Namespace: ra.Namespace, APIGroup: ra.Group,
			APIVersion: version, Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name}
	} else if nra != nil {
		a.RequestInfo = request.RequestInfo{Path: nra.Path, Verb: nra.Verb}
	}
	return a
}

// decide asks z and words the answer as a SubjectAccessReviewStatus.
func decide(ctx context.Context, z authorization.Authorizer, a authorization.Attributes) authzv1.SubjectAccessReviewStatus {
	d, reason, err := z.Authorize(ctx, a)
	status := authzv1.SubjectAccessReviewStatus{Allowed: d == authorization.Allow, Denied: d == authorization.Deny, Reason: reason}
	if err != nil {
		status.EvaluationError = err.Error()
	}
	return status
}

// selfSubjectRulesReview lists the rules the requesting user holds in spec.namespace, as
// kube's selfsubjectrulesreview REST: the answer carries the status only.
func selfSubjectRulesReview(ctx context.Context, z authorization.Authorizer, obj runtime.Object) (runtime.Object, error) {
	review := obj.(*authzv1.SelfSubjectRulesReview)
	u, err := requestUser(ctx)
	if err != nil {
		return nil, err
	}
	if review.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	resource, nonResource, incomplete, rulesErr := authorization.RulesFor(ctx, z, u, review.Spec.Namespace)
	out := &authzv1.SelfSubjectRulesReview{Status: authzv1.SubjectRulesReviewStatus{
		ResourceRules: make([]authzv1.ResourceRule, len(resource)), NonResourceRules: make([]authzv1.NonResourceRule, len(nonResource)),
		Incomplete: incomplete}}
	for i, r := range resource {
		out.Status.ResourceRules[i] = authzv1.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames}
	}
	for i, r := range nonResource {
		out.Status.NonResourceRules[i] = authzv1.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs}
	}
	if rulesErr != nil {
		out.Status.EvaluationError = rulesErr.Error()
	}
	return out, nil
}

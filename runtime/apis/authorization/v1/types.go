package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SubjectAccessReview checks whether or not a user or group can perform an action.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type SubjectAccessReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata; must be empty.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds information about the request being evaluated.
	Spec SubjectAccessReviewSpec `json:"spec"`

	// Status is filled in by the server and indicates whether the request is allowed or not.
	// +optional
	Status SubjectAccessReviewStatus `json:"status,omitempty"`
}

// SelfSubjectAccessReview checks whether or the current user can perform an action. Not
// filling in a spec.namespace means "in all namespaces".
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type SelfSubjectAccessReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata; must be empty.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds information about the request being evaluated; user and groups must be
	// empty.
	Spec SelfSubjectAccessReviewSpec `json:"spec"`

	// Status is filled in by the server and indicates whether the request is allowed or not.
	// +optional
	Status SubjectAccessReviewStatus `json:"status,omitempty"`
}

// LocalSubjectAccessReview checks whether or not a user or group can perform an action in a
// given namespace. Having a namespace scoped resource makes it much easier to grant namespace
// scoped policy that includes permissions checking.
//
// +genclient
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type LocalSubjectAccessReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata; only namespace may be set.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds information about the request being evaluated; spec.namespace must be equal
	// to the namespace you made the request against. If empty, it is defaulted.
	Spec SubjectAccessReviewSpec `json:"spec"`

	// Status is filled in by the server and indicates whether the request is allowed or not.
	// +optional
	Status SubjectAccessReviewStatus `json:"status,omitempty"`
}

// ResourceAttributes includes the authorization attributes available for resource requests
// to the Authorizer interface.
type ResourceAttributes struct {
	// Namespace is the namespace of the action being requested; "" means all namespaces for
	// namespaced resources, and nothing for cluster-scoped ones.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete,
	// proxy; "*" means all.
	// +optional
	Verb string `json:"verb,omitempty"`
	// Group is the API Group of the Resource; "*" means all.
	// +optional
	Group string `json:"group,omitempty"`
	// Version is the API Version of the Resource; "*" means all.
	// +optional
	Version string `json:"version,omitempty"`
	// Resource is one of the existing resource types; "*" means all.
	// +optional
	Resource string `json:"resource,omitempty"`
	// Subresource is one of the existing resource types; "" means none.
	// +optional
	Subresource string `json:"subresource,omitempty"`
	// Name is the name of the resource being requested for a "get" or deleted for a
	// "delete"; "" (empty) means all.
	// +optional
	Name string `json:"name,omitempty"`
	// FieldSelector describes the limitation on access based on field; it can only limit
	// access, not broaden it.
	// +optional
	FieldSelector *FieldSelectorAttributes `json:"fieldSelector,omitempty"`
	// LabelSelector describes the limitation on access based on labels; it can only limit
	// access, not broaden it.
	// +optional
	LabelSelector *LabelSelectorAttributes `json:"labelSelector,omitempty"`
}

// FieldSelectorAttributes indicates a field limited access: rawSelector is the serialization
// of a field selector (as in a query parameter), requirements its parsed form.
type FieldSelectorAttributes struct {
	// RawSelector is the serialization of a field selector that would be included in a query
	// parameter.
	// +optional
	RawSelector string `json:"rawSelector,omitempty"`
	// Requirements is the parsed interpretation of a field selector.
	// +optional
	// +listType=atomic
	Requirements []metav1.FieldSelectorRequirement `json:"requirements,omitempty"`
}

// LabelSelectorAttributes indicates a label limited access: rawSelector is the serialization
// of a label selector (as in a query parameter), requirements its parsed form.
type LabelSelectorAttributes struct {
	// RawSelector is the serialization of a label selector that would be included in a query
	// parameter.
	// +optional
	RawSelector string `json:"rawSelector,omitempty"`
	// Requirements is the parsed interpretation of a label selector.
	// +optional
	// +listType=atomic
	Requirements []metav1.LabelSelectorRequirement `json:"requirements,omitempty"`
}

// NonResourceAttributes includes the authorization attributes available for non-resource
// requests to the Authorizer interface.
type NonResourceAttributes struct {
	// Path is the URL path of the request.
	// +optional
	Path string `json:"path,omitempty"`
	// Verb is the standard HTTP verb.
	// +optional
	Verb string `json:"verb,omitempty"`
}

// SubjectAccessReviewSpec is a description of the access request. Exactly one of
// ResourceAttributes and NonResourceAttributes must be set.
type SubjectAccessReviewSpec struct {
	// ResourceAttributes describes information for a resource access request.
	// +optional
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty"`
	// NonResourceAttributes describes information for a non-resource access request.
	// +optional
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`

	// User is the user you're testing for. If you specify "User" but not "Groups", then is it
	// interpreted as "What if User were not a member of any groups".
	// +optional
	User string `json:"user,omitempty"`
	// Groups is the groups you're testing for.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// Extra corresponds to the user.Info.GetExtra() method from the authenticator.
	// +optional
	Extra map[string]ExtraValue `json:"extra,omitempty"`
	// UID information about the requesting user.
	// +optional
	UID string `json:"uid,omitempty"`
}

// ExtraValue masks the value so protobuf can generate.
type ExtraValue []string

// SelfSubjectAccessReviewSpec is a description of the access request. Exactly one of
// ResourceAttributes and NonResourceAttributes must be set.
type SelfSubjectAccessReviewSpec struct {
	// ResourceAttributes describes information for a resource access request.
	// +optional
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty"`
	// NonResourceAttributes describes information for a non-resource access request.
	// +optional
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// SubjectAccessReviewStatus is the answer: allowed, denied (an authorizer said no; both may
// be false), why, and an evaluation error.
type SubjectAccessReviewStatus struct {
	// Allowed is required. True if the action would be allowed, false otherwise.
	Allowed bool `json:"allowed"`
	// Denied is optional. True if the action would be denied, otherwise false.
	// +optional
	Denied bool `json:"denied,omitempty"`
	// Reason is optional. It indicates why a request was allowed or denied.
	// +optional
	Reason string `json:"reason,omitempty"`
	// EvaluationError is an indication that some error occurred during the authorization
	// check.
	// +optional
	EvaluationError string `json:"evaluationError,omitempty"`
}

// SelfSubjectRulesReview enumerates the set of actions the current user can perform within a
// namespace. The returned list of actions may be incomplete depending on the server's
// authorization mode, and any errors experienced during the evaluation.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type SelfSubjectRulesReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds information about the request being evaluated.
	Spec SelfSubjectRulesReviewSpec `json:"spec"`

	// Status is filled in by the server and indicates the set of actions a user can perform.
	// +optional
	Status SubjectRulesReviewStatus `json:"status,omitempty"`
}

// SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.
type SelfSubjectRulesReviewSpec struct {
	// Namespace to evaluate rules for. Required.
	Namespace string `json:"namespace,omitempty"`
}

// SubjectRulesReviewStatus contains the result of a rules check. This check can be incomplete
// depending on the set of authorizers the server is configured with and any errors
// experienced during evaluation.
type SubjectRulesReviewStatus struct {
	// ResourceRules is the list of actions the subject is allowed to perform on resources.
	// +listType=atomic
	ResourceRules []ResourceRule `json:"resourceRules"`
	// NonResourceRules is the list of actions the subject is allowed to perform on
	// non-resources.
	// +listType=atomic
	NonResourceRules []NonResourceRule `json:"nonResourceRules"`
	// Incomplete is true when the rules returned by this call are incomplete.
	Incomplete bool `json:"incomplete"`
	// EvaluationError can appear in combination with Rules.
	// +optional
	EvaluationError string `json:"evaluationError,omitempty"`
}

// ResourceRule is the list of actions the subject is allowed to perform on resources.
type ResourceRule struct {
	// Verb is a list of kubernetes resource API verbs, like: get, list, watch, create,
	// update, delete, proxy; "*" means all.
	// +listType=atomic
	Verbs []string `json:"verbs"`
	// APIGroups is the name of the APIGroup that contains the resources; "*" means all.
	// +optional
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty"`
	// Resources is a list of resources this rule applies to; "*" means all in the specified
	// apiGroups, "*/foo" the subresource foo of all.
	// +optional
	// +listType=atomic
	Resources []string `json:"resources,omitempty"`
	// ResourceNames is an optional white list of names that the rule applies to; "*" means
	// all.
	// +optional
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule holds information that describes a rule for the non-resource.
type NonResourceRule struct {
	// Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete,
	// patch, head, options; "*" means all.
	// +listType=atomic
	Verbs []string `json:"verbs"`
	// NonResourceURLs is a set of partial urls that a user should have access to; "*"s are
	// allowed, but only as the full, final step in the path.
	// +optional
	// +listType=atomic
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Rule is a set of resources in API groups and versions a webhook or policy applies to.
type Rule struct {
	// APIGroups are the API groups the resources belong to; "*" is every group, "" the core
	// group. Required.
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty"`
	// APIVersions are the versions of those groups; "*" is every version. Required.
	// +listType=atomic
	APIVersions []string `json:"apiVersions,omitempty"`
	// Resources are resource names ("databases"), "resource/subresource" ("databases/status"),
	// "*" (every resource, no subresource), "*/status" or "*/*" (every resource and
	// subresource). Required.
	// +listType=atomic
	Resources []string `json:"resources,omitempty"`
	// Scope restricts the rule to Cluster or Namespaced resources; "*" (the default) matches
	// both.
	// +optional
	Scope *ScopeType `json:"scope,omitempty"`
}

// ScopeType is the scope of the resources a Rule matches.
// +enum
type ScopeType string

// The scopes a Rule may name.
const (
	// ClusterScope matches cluster-scoped resources only.
	ClusterScope ScopeType = "Cluster"
	// NamespacedScope matches namespaced resources only.
	NamespacedScope ScopeType = "Namespaced"
	// AllScopes matches both.
	AllScopes ScopeType = "*"
)

// FailurePolicyType says what happens when a webhook cannot be called or a policy cannot be
// evaluated.
// +enum
type FailurePolicyType string

// The failure policies.
const (
	// Ignore admits the request as if the webhook or policy were not there.
	Ignore FailurePolicyType = "Ignore"
	// Fail refuses the request.
	Fail FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match a request for another version of the same resource.
// +enum
type MatchPolicyType string

// The match policies.
const (
	// Exact matches a request only when a rule names its group, version and resource.
	Exact MatchPolicyType = "Exact"
	// Equivalent also matches a request for an equivalent resource (the same objects served
	// in another version), sending the object converted to the version the rule names.
	Equivalent MatchPolicyType = "Equivalent"
)

// OperationType is an operation a rule matches.
// +enum
type OperationType string

// The operations.
const (
	OperationAll OperationType = "*"
	Create       OperationType = "CREATE"
	Update       OperationType = "UPDATE"
	Delete       OperationType = "DELETE"
	Connect      OperationType = "CONNECT"
)

// RuleWithOperations is a Rule with the operations it matches.
type RuleWithOperations struct {
	// Operations are CREATE, UPDATE, DELETE, CONNECT, or "*" alone for all of them. Required.
	// +listType=atomic
	Operations []OperationType `json:"operations,omitempty"`
	// Rule names the resources.
	Rule `json:",inline"`
}

// MatchCondition is a CEL expression that must be true for a webhook to be called (or a
// policy to apply). It sees object, oldObject, request and authorizer.
type MatchCondition struct {
	// Name identifies the condition in errors: a qualified name (a DNS-1123 subdomain prefix
	// and "/" optional), unique in its list. Required.
	Name string `json:"name"`
	// Expression is the CEL expression; it must evaluate to a bool. Required.
	Expression string `json:"expression"`
}

// MatchResources selects the requests a ValidatingAdmissionPolicy or its binding applies to.
// +structType=atomic
type MatchResources struct {
	// NamespaceSelector selects by the labels of the object's namespace (a Namespace object by
	// its own labels); cluster-scoped objects always match. Defaults to {} (everything).
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	// ObjectSelector selects by the labels of the object (and of the old object on update).
	// Defaults to {} (everything).
	// +optional
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty"`
	// ResourceRules are the operations and resources that match.
	// +listType=atomic
	// +optional
	ResourceRules []NamedRuleWithOperations `json:"resourceRules,omitempty"`
	// ExcludeResourceRules are operations and resources that do not match, even if
	// ResourceRules match them.
	// +listType=atomic
	// +optional
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty"`
	// MatchPolicy is Exact or Equivalent (the default).
	// +optional
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty"`
}

// NamedRuleWithOperations is a RuleWithOperations limited to objects of the given names.
// +structType=atomic
type NamedRuleWithOperations struct {
	// ResourceNames, when given, limit the rule to objects of those names.
	// +listType=atomic
	// +optional
	ResourceNames []string `json:"resourceNames,omitempty"`
	// RuleWithOperations names the operations and resources.
	RuleWithOperations `json:",inline"`
}

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PolicyRule allows verbs on resources of API groups (optionally only the named ones), or
// verbs on non-resource URLs.
type PolicyRule struct {
	// Verbs are the verbs allowed, e.g. get, list, watch, create, update, patch, delete,
	// deletecollection; "*" is every verb.
	// +listType=atomic
	Verbs []string `json:"verbs"`
	// APIGroups are the API groups of Resources; "" is the core group and "*" every group.
	// +optional
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty"`
	// Resources are resource names, "resource/subresource", "*/subresource" or "*".
	// +optional
	// +listType=atomic
	Resources []string `json:"resources,omitempty"`
	// ResourceNames, when given, limit the rule to objects of those names.
	// +optional
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty"`
	// NonResourceURLs are paths ("/healthz") or prefixes ending in "*" ("/apis/*"); they apply
	// to ClusterRoles only.
	// +optional
	// +listType=atomic
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// Subject is who a binding grants a role to.
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	// +kubebuilder:validation:Enum=User;Group;ServiceAccount
	Kind string `json:"kind"`
	// APIGroup is rbac.authorization.k8s.io for User and Group, "" for ServiceAccount.
	// +optional
	APIGroup string `json:"apiGroup,omitempty"`
	// Name is the user's, group's or service account's name.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Namespace is the service account's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// RoleRef names the role a binding grants.
type RoleRef struct {
	// APIGroup is rbac.authorization.k8s.io.
	// +kubebuilder:validation:Enum=rbac.authorization.k8s.io
	APIGroup string `json:"apiGroup"`
	// Kind is Role (in the binding's namespace) or ClusterRole.
	// +kubebuilder:validation:Enum=Role;ClusterRole
	Kind string `json:"kind"`
	// Name is the role's name.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// Role is a namespaced set of rules, granted by RoleBindings in its namespace.
//
// +kubebuilder:object:root=true
// +apigen:nameValidation=PathSegment
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Created At",type=date,JSONPath=`.metadata.creationTimestamp`
type Role struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Rules are the rules of the role.
	// +optional
	// +listType=atomic
	Rules []PolicyRule `json:"rules"`
}

// RoleList is a list of Roles.
type RoleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Role `json:"items"`
}

// ClusterRole is a cluster-wide set of rules, granted everywhere by ClusterRoleBindings or
// in one namespace by RoleBindings.
//
// +kubebuilder:object:root=true
// +apigen:nameValidation=PathSegment
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Created At",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterRole struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Rules are the rules of the role. With an AggregationRule they are written by the
	// clusterrole-aggregation controller: the union of the rules of the ClusterRoles the
	// selectors match; direct changes are overwritten.
	// +optional
	// +listType=atomic
	Rules []PolicyRule `json:"rules"`

	// AggregationRule, when set, makes Rules the union of the rules of the ClusterRoles its
	// selectors match.
	// +optional
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty"`
}

// AggregationRule describes how to locate the ClusterRoles to aggregate into a ClusterRole.
type AggregationRule struct {
	// ClusterRoleSelectors select ClusterRoles by label; the rules of a ClusterRole any of them
	// matches are added.
	// +optional
	// +listType=atomic
	ClusterRoleSelectors []metav1.LabelSelector `json:"clusterRoleSelectors,omitempty"`
}

// ClusterRoleList is a list of ClusterRoles.
type ClusterRoleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterRole `json:"items"`
}

// RoleBinding grants a Role or ClusterRole to subjects in its namespace.
//
// +kubebuilder:object:root=true
// +apigen:nameValidation=PathSegment
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.roleRef.name`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RoleBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Subjects are who the role is granted to.
	// +optional
	// +listType=atomic
	Subjects []Subject `json:"subjects,omitempty"`
	// RoleRef is the role granted; it cannot change once the binding exists.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="roleRef is immutable"
	RoleRef RoleRef `json:"roleRef"`
}

// RoleBindingList is a list of RoleBindings.
type RoleBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RoleBinding `json:"items"`
}

// ClusterRoleBinding grants a ClusterRole to subjects everywhere.
//
// +kubebuilder:object:root=true
// +apigen:nameValidation=PathSegment
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.roleRef.name`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterRoleBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Subjects are who the role is granted to.
	// +optional
	// +listType=atomic
	Subjects []Subject `json:"subjects,omitempty"`
	// RoleRef is the ClusterRole granted; it cannot change once the binding exists.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="roleRef is immutable"
	RoleRef RoleRef `json:"roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBindings.
type ClusterRoleBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterRoleBinding `json:"items"`
}

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ParameterNotFoundActionType says what a binding does when its parameters are missing.
// +enum
type ParameterNotFoundActionType string

// The actions.
const (
	// AllowAction admits the request without evaluating the policy.
	AllowAction ParameterNotFoundActionType = "Allow"
	// DenyAction fails the request (subject to the policy's failurePolicy).
	DenyAction ParameterNotFoundActionType = "Deny"
)

// ValidationAction is what a binding does with a failed validation.
// +enum
type ValidationAction string

// The validation actions.
const (
	// Deny refuses the request.
	Deny ValidationAction = "Deny"
	// Warn returns the failure as a warning (a Warning header) and admits the request.
	Warn ValidationAction = "Warn"
	// Audit records the failure in the request's audit event.
	Audit ValidationAction = "Audit"
)

// ValidatingAdmissionPolicy is a set of CEL validations applied to the requests its bindings
// select.
//
// +kubebuilder:object:root=true
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ValidatingAdmissionPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy.
	// +optional
	Spec ValidatingAdmissionPolicySpec `json:"spec,omitempty"`
	// Status is what the server observed of it.
	// +optional
	Status ValidatingAdmissionPolicyStatus `json:"status,omitempty"`
}

// ValidatingAdmissionPolicyStatus is the status of a policy. The server does not type-check
// policies, so TypeChecking stays empty.
type ValidatingAdmissionPolicyStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// TypeChecking holds the warnings of type-checking the expressions.
	// +optional
	TypeChecking *TypeChecking `json:"typeChecking,omitempty"`
	// Conditions are the policy's conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// TypeChecking is the result of type-checking a policy's expressions.
type TypeChecking struct {
	// ExpressionWarnings are the warnings, one per expression.
	// +optional
	// +listType=atomic
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty"`
}

// ExpressionWarning is a type-checking warning of one expression.
type ExpressionWarning struct {
	// FieldRef is the path of the expression, e.g. "spec.validations[0].expression".
	FieldRef string `json:"fieldRef"`
	// Warning is the warning.
	Warning string `json:"warning"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
type ValidatingAdmissionPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ValidatingAdmissionPolicy `json:"items"`
}

// ValidatingAdmissionPolicySpec is what a policy checks and when.
type ValidatingAdmissionPolicySpec struct {
	// ParamKind is the kind of the parameter objects bindings refer to; nil means the policy
	// takes no parameters (params is null).
	// +optional
	ParamKind *ParamKind `json:"paramKind,omitempty"`
	// MatchConstraints are the requests the policy may apply to; resourceRules are required.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty"`
	// Validations are CEL expressions that must all be true.
	// +listType=atomic
	// +optional
	Validations []Validation `json:"validations,omitempty"`
	// FailurePolicy is Fail (the default) or Ignore: what an expression that cannot be
	// evaluated, or a misconfigured binding, does.
	// +optional
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty"`
	// AuditAnnotations are CEL expressions whose values are added to the request's audit
	// event.
	// +listType=atomic
	// +optional
	AuditAnnotations []AuditAnnotation `json:"auditAnnotations,omitempty"`
	// MatchConditions must all be true for the policy to apply; at most 64.
	// +listType=map
	// +listMapKey=name
	// +optional
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// Variables are named CEL expressions the others refer to as variables.<name>, each
	// able to refer to those before it.
	// +listType=atomic
	// +optional
	Variables []Variable `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ParamKind names the kind of a policy's parameters.
// +structType=atomic
type ParamKind struct {
	// APIVersion is the group/version of the kind, e.g. "db.example.com/v1".
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the kind, e.g. "DatabaseClass".
	Kind string `json:"kind,omitempty"`
}

// Validation is one CEL expression of a policy.
type Validation struct {
	// Expression must evaluate to a bool; false fails the validation. It sees object,
	// oldObject, request, params, namespaceObject, variables and authorizer. Required.
	Expression string `json:"expression"`
	// Message is the failure's message (one line); the default names the expression.
	// +optional
	Message string `json:"message,omitempty"`
	// Reason is the failure's status reason and code: Unauthorized (401), Forbidden (403,
	// the default), Invalid (422) or RequestEntityTooLarge (413).
	// +optional
	Reason *metav1.StatusReason `json:"reason,omitempty"`
	// MessageExpression is a CEL expression yielding the message instead; when it fails or
	// yields an empty string, Message is used.
	// +optional
	MessageExpression string `json:"messageExpression,omitempty"`
}

// Variable is a named CEL expression of a policy.
// +structType=atomic
type Variable struct {
	// Name is a CEL identifier, unique in the policy. Required.
	Name string `json:"name"`
	// Expression is the CEL expression. Required.
	Expression string `json:"expression"`
}

// AuditAnnotation is an audit annotation a policy adds to the request's audit event.
type AuditAnnotation struct {
	// Key is combined with the policy's name into the annotation key
	// "<policy>/<key>"; a qualified name's name part, unique in the policy. Required.
	Key string `json:"key"`
	// ValueExpression is a CEL expression yielding a string (or null, which adds nothing).
	// Required.
	ValueExpression string `json:"valueExpression"`
}

// ValidatingAdmissionPolicyBinding applies a policy to the requests it selects, with
// parameters and actions.
//
// +kubebuilder:object:root=true
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ValidatingAdmissionPolicyBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the binding.
	// +optional
	Spec ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty"`
}

// ValidatingAdmissionPolicyBindingList is a list of ValidatingAdmissionPolicyBindings.
type ValidatingAdmissionPolicyBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ValidatingAdmissionPolicyBinding `json:"items"`
}

// ValidatingAdmissionPolicyBindingSpec names a policy, its parameters, the requests it
// applies to and what failures do.
type ValidatingAdmissionPolicyBindingSpec struct {
	// PolicyName is the name of the ValidatingAdmissionPolicy. Required.
	PolicyName string `json:"policyName,omitempty"`
	// ParamRef finds the parameter objects (of the policy's paramKind); the policy is
	// evaluated once per object found.
	// +optional
	ParamRef *ParamRef `json:"paramRef,omitempty"`
	// MatchResources narrow the requests the policy applies to, within its
	// matchConstraints.
	// +optional
	MatchResources *MatchResources `json:"matchResources,omitempty"`
	// ValidationActions are Deny, Warn and/or Audit (not both Deny and Warn). Required.
	// +listType=set
	ValidationActions []ValidationAction `json:"validationActions,omitempty"`
}

// ParamRef finds the parameters of a binding: one object by name, or every object a selector
// matches.
// +structType=atomic
type ParamRef struct {
	// Name is the parameter object's name; exclusive with Selector.
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace is the parameters' namespace for a namespaced paramKind; empty means the
	// request's namespace (and no parameters for a cluster-scoped request).
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Selector selects the parameter objects by label; exclusive with Name.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// ParameterNotFoundAction is Allow or Deny: what happens when no parameter object is
	// found. Required.
	ParameterNotFoundAction *ParameterNotFoundActionType `json:"parameterNotFoundAction,omitempty"`
}

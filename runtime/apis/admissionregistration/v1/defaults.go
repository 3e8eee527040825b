package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultTimeoutSeconds is a webhook's timeout when none is given, as upstream's.
const defaultTimeoutSeconds int32 = 10

// SetDefaults_ValidatingWebhook defaults a validating webhook as upstream's defaults.go:
// failurePolicy Fail, matchPolicy Equivalent, empty (match-everything) namespace and object
// selectors, timeoutSeconds 10.
func SetDefaults_ValidatingWebhook(obj *ValidatingWebhook) {
	setWebhookDefaults(&obj.FailurePolicy, &obj.MatchPolicy, &obj.NamespaceSelector, &obj.ObjectSelector, &obj.TimeoutSeconds)
}

// SetDefaults_MutatingWebhook defaults a mutating webhook as a validating one, and
// reinvocationPolicy Never, as upstream.
func SetDefaults_MutatingWebhook(obj *MutatingWebhook) {
	setWebhookDefaults(&obj.FailurePolicy, &obj.MatchPolicy, &obj.NamespaceSelector, &obj.ObjectSelector, &obj.TimeoutSeconds)
	if obj.ReinvocationPolicy == nil {
		never := NeverReinvocationPolicy
		obj.ReinvocationPolicy = &never
	}
}

// setWebhookDefaults sets the defaults both webhook kinds share.
func setWebhookDefaults(failure **FailurePolicyType, match **MatchPolicyType, ns, obj **metav1.LabelSelector, timeout **int32) {
	if *failure == nil {
		fail := Fail
		*failure = &fail
	}
	if *match == nil {
		equivalent := Equivalent
		*match = &equivalent
	}
	if *ns == nil {
		*ns = &metav1.LabelSelector{}
	}
	if *obj == nil {
		*obj = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		t := defaultTimeoutSeconds
		*timeout = &t
	}
}

// SetDefaults_Rule defaults a rule's scope to "*", as upstream.
func SetDefaults_Rule(obj *Rule) {
	if obj.Scope == nil {
		all := AllScopes
		obj.Scope = &all
	}
}

// SetDefaults_ServiceReference defaults a webhook service's port to 443, as upstream.
func SetDefaults_ServiceReference(obj *ServiceReference) {
	if obj.Port == nil {
		port := int32(443)
		obj.Port = &port
	}
}

// SetDefaults_ValidatingAdmissionPolicySpec defaults a policy's failurePolicy to Fail, as
// upstream.
func SetDefaults_ValidatingAdmissionPolicySpec(obj *ValidatingAdmissionPolicySpec) {
	if obj.FailurePolicy == nil {
		fail := Fail
		obj.FailurePolicy = &fail
	}
}

// SetDefaults_MatchResources defaults matchPolicy to Equivalent and the selectors to {}, as
// upstream.
func SetDefaults_MatchResources(obj *MatchResources) {
	if obj.MatchPolicy == nil {
		equivalent := Equivalent
		obj.MatchPolicy = &equivalent
	}
	if obj.NamespaceSelector == nil {
		obj.NamespaceSelector = &metav1.LabelSelector{}
	}
	if obj.ObjectSelector == nil {
		obj.ObjectSelector = &metav1.LabelSelector{}
	}
}

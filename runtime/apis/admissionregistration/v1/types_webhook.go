package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SideEffectClass says whether a webhook changes anything besides the admitted object, which
// decides whether it may be called for a dry run.
// +enum
type SideEffectClass string

// The side-effect classes. Only None and NoneOnDryRun may be set in v1; Unknown and Some
// remain from v1beta1 and make a dry run fail.
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook is called again when a later one
// changed the object.
// +enum
type ReinvocationPolicyType string

// The reinvocation policies.
const (
	// NeverReinvocationPolicy calls the webhook once per request (the default).
	NeverReinvocationPolicy ReinvocationPolicyType = "Never"
	// IfNeededReinvocationPolicy calls the webhook once more when a webhook after it changed
	// the object.
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// WebhookClientConfig says how to reach a webhook: exactly one of URL and Service.
type WebhookClientConfig struct {
	// URL is https://host[:port][/path], without user info, query or fragment.
	// +optional
	URL *string `json:"url,omitempty"`
	// Service is a Service the webhook is served by, reached at
	// https://<name>.<namespace>.svc:<port><path>.
	// +optional
	Service *ServiceReference `json:"service,omitempty"`
	// CABundle is a PEM bundle of the CAs that verify the webhook's serving certificate; empty
	// means the server's system roots.
	// +optional
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference names a Service port and a path on it.
type ServiceReference struct {
	// Namespace is the Service's namespace. Required.
	Namespace string `json:"namespace"`
	// Name is the Service's name. Required.
	Name string `json:"name"`
	// Path is the URL path requests are sent to; it must start with "/".
	// +optional
	Path *string `json:"path,omitempty"`
	// Port is the Service port, 1-65535; defaults to 443.
	// +optional
	Port *int32 `json:"port,omitempty"`
}

// ValidatingWebhookConfiguration lists webhooks that accept or reject requests without
// changing them; they are called in parallel after the mutating ones.
//
// +kubebuilder:object:root=true
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ValidatingWebhookConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Webhooks are the webhooks, called in parallel.
	// +optional
	// +listType=map
	// +listMapKey=name
	Webhooks []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ValidatingWebhookConfigurationList is a list of ValidatingWebhookConfigurations.
type ValidatingWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ValidatingWebhookConfiguration `json:"items"`
}

// MutatingWebhookConfiguration lists webhooks that may change the object (with a JSON
// patch) or reject the request; they are called one after the other, in the order of their
// configurations' names and then of the list.
//
// +kubebuilder:object:root=true
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MutatingWebhookConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Webhooks are the webhooks, called in order.
	// +optional
	// +listType=map
	// +listMapKey=name
	Webhooks []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// MutatingWebhookConfigurationList is a list of MutatingWebhookConfigurations.
type MutatingWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MutatingWebhookConfiguration `json:"items"`
}

// ValidatingWebhook is one validating webhook: where it is, which requests it is called for
// and what happens when it cannot be called.
type ValidatingWebhook struct {
	// Name is a fully qualified name (at least three DNS labels, e.g. "deny.db.example.com"),
	// unique in its configuration. Required.
	Name string `json:"name"`
	// ClientConfig says how to reach the webhook. Required.
	ClientConfig WebhookClientConfig `json:"clientConfig"`
	// Rules are the operations and resources the webhook is called for; a request matching
	// any rule matches.
	// +listType=atomic
	// +optional
	Rules []RuleWithOperations `json:"rules,omitempty"`
	// FailurePolicy is Fail (the default: a call that fails refuses the request) or Ignore.
	// +optional
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty"`
	// MatchPolicy is Exact or Equivalent (the default).
	// +optional
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty"`
	// NamespaceSelector selects by the labels of the object's namespace; defaults to {}.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	// ObjectSelector selects by the labels of the object or the old object; defaults to {}.
	// +optional
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty"`
	// SideEffects is None or NoneOnDryRun: the webhook is called for dry runs (with
	// request.dryRun true) and must not act on them. Required.
	SideEffects *SideEffectClass `json:"sideEffects"`
	// TimeoutSeconds bounds a call, 1 to 30 seconds; defaults to 10. A call that times out
	// fails (see FailurePolicy).
	// +optional
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// AdmissionReviewVersions are the AdmissionReview versions the webhook accepts, in order
	// of preference; the server sends v1 and needs it listed. Required.
	// +listType=atomic
	AdmissionReviewVersions []string `json:"admissionReviewVersions"`
	// MatchConditions must all be true (CEL) for the webhook to be called; at most 64.
	// +listType=map
	// +listMapKey=name
	// +optional
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// MutatingWebhook is one mutating webhook: a ValidatingWebhook that may return a JSON patch,
// with a reinvocation policy.
type MutatingWebhook struct {
	// Name is a fully qualified name (at least three DNS labels), unique in its
	// configuration. Required.
	Name string `json:"name"`
	// ClientConfig says how to reach the webhook. Required.
	ClientConfig WebhookClientConfig `json:"clientConfig"`
	// Rules are the operations and resources the webhook is called for.
	// +listType=atomic
	// +optional
	Rules []RuleWithOperations `json:"rules,omitempty"`
	// FailurePolicy is Fail (the default) or Ignore.
	// +optional
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty"`
	// MatchPolicy is Exact or Equivalent (the default).
	// +optional
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty"`
	// NamespaceSelector selects by the labels of the object's namespace; defaults to {}.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	// ObjectSelector selects by the labels of the object or the old object; defaults to {}.
	// +optional
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty"`
	// SideEffects is None or NoneOnDryRun. Required.
	SideEffects *SideEffectClass `json:"sideEffects"`
	// TimeoutSeconds bounds a call, 1 to 30 seconds; defaults to 10.
	// +optional
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// AdmissionReviewVersions are the AdmissionReview versions the webhook accepts. Required.
	// +listType=atomic
	AdmissionReviewVersions []string `json:"admissionReviewVersions"`
	// ReinvocationPolicy is Never (the default) or IfNeeded.
	// +optional
	ReinvocationPolicy *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty"`
	// MatchConditions must all be true (CEL) for the webhook to be called; at most 64.
	// +listType=map
	// +listMapKey=name
	// +optional
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FinalizerName is the name of a namespace finalizer: something that must happen before a
// namespace is removed from storage.
type FinalizerName string

// FinalizerKubernetes is the finalizer the server puts on every namespace on create; the
// namespace controller removes it once the namespace's content is deleted.
const FinalizerKubernetes FinalizerName = "kubernetes"

// NamespaceSpec describes the attributes of a namespace.
type NamespaceSpec struct {
	// Finalizers is an opaque list of values that must be empty to permanently remove the
	// object from storage. It changes only through the finalize subresource.
	// More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/
	// +optional
	// +listType=atomic
	Finalizers []FinalizerName `json:"finalizers,omitempty"`
}

// NamespacePhase is the current lifecycle phase of a namespace.
type NamespacePhase string

// The namespace phases, as Kubernetes'.
const (
	// NamespaceActive means the namespace is available for use in the system.
	NamespaceActive NamespacePhase = "Active"
	// NamespaceTerminating means the namespace is undergoing graceful termination.
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceTerminatingCause is the StatusCause type of a create refused because the
// namespace is terminating.
const NamespaceTerminatingCause metav1.CauseType = "NamespaceTerminating"

// NamespaceConditionType is the type of a namespace condition.
type NamespaceConditionType string

// The namespace condition types, as Kubernetes'.
const (
	// NamespaceDeletionDiscoveryFailure means discovery of the namespace's resources failed.
	NamespaceDeletionDiscoveryFailure NamespaceConditionType = "NamespaceDeletionDiscoveryFailure"
	// NamespaceDeletionContentFailure means deleting the namespace's content failed.
	NamespaceDeletionContentFailure NamespaceConditionType = "NamespaceDeletionContentFailure"
	// NamespaceContentRemaining means content remains in the namespace.
	NamespaceContentRemaining NamespaceConditionType = "NamespaceContentRemaining"
	// NamespaceFinalizersRemaining means objects with finalizers remain in the namespace.
	NamespaceFinalizersRemaining NamespaceConditionType = "NamespaceFinalizersRemaining"
)

// NamespaceCondition contains details about the state of a namespace.
type NamespaceCondition struct {
	// Type of namespace controller condition.
	Type NamespaceConditionType `json:"type"`
	// Status of the condition, one of True, False, Unknown.
	Status metav1.ConditionStatus `json:"status"`
	// LastTransitionTime is the last time the condition changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason is a unique, one-word, CamelCase reason for the condition's last transition.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable message indicating details about the last transition.
	// +optional
	Message string `json:"message,omitempty"`
}

// NamespaceStatus is information about the current status of a namespace.
type NamespaceStatus struct {
	// Phase is the current lifecycle phase of the namespace.
	// +optional
	// +kubebuilder:validation:Enum=Active;Terminating
	Phase NamespacePhase `json:"phase,omitempty"`
	// Conditions are the latest available observations of the namespace's current state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// Namespace provides a scope for names. Use of multiple namespaces is optional.
//
// +kubebuilder:object:root=true
// +apigen:nameValidation=DNS1123Label
// +kubebuilder:resource:scope=Cluster,shortName=ns
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Namespace struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec defines the behavior of the namespace.
	// +optional
	Spec NamespaceSpec `json:"spec,omitempty"`
	// Status describes the current status of the namespace.
	// +optional
	Status NamespaceStatus `json:"status,omitempty"`
}

// NamespaceList is a list of Namespaces.
type NamespaceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items is the list of Namespace objects in the list.
	Items []Namespace `json:"items"`
}

// ConfigMap holds configuration data for pods to consume.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=cm
type ConfigMap struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Immutable, if set to true, ensures that data stored in the ConfigMap cannot
	// be updated (only object metadata can be modified).
	// If not set to true, the field can be modified at any time.
	// Defaulted to nil.
	// +optional
	Immutable *bool `json:"immutable,omitempty"`

	// Data contains the configuration data.
	// Each key must consist of alphanumeric characters, '-', '_' or '.'.
	// Values with non-UTF-8 byte sequences must use the BinaryData field.
	// The keys stored in Data must not overlap with the keys in
	// the BinaryData field, this is enforced during validation process.
	// +optional
	Data map[string]string `json:"data,omitempty"`

	// BinaryData contains the binary data.
	// Each key must consist of alphanumeric characters, '-', '_' or '.'.
	// BinaryData can contain byte sequences that are not in the UTF-8 range.
	// The keys stored in BinaryData must not overlap with the ones in
	// the Data field, this is enforced during validation process.
	// Using this field will require 1.10+ apiserver and
	// kubelet.
	// Note: BinaryData keys are not currently propagated to container env vars
	// via ConfigMapKeyRef or ConfigMapRef env sources; only Data keys are used.
	// +optional
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMapList is a resource containing a list of ConfigMap objects.
type ConfigMapList struct {
	metav1.TypeMeta `json:",inline"`

	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items is the list of ConfigMaps.
	Items []ConfigMap `json:"items"`
}

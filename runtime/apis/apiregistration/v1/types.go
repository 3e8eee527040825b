package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceReference names the Service a backend is reached through, as kube-aggregator's.
type ServiceReference struct {
	// Namespace is the namespace of the service.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name is the name of the service.
	// +optional
	Name string `json:"name,omitempty"`
	// Port is the port on the service hosting the backend; 443 when omitted. It must be a
	// valid port number (1-65535, inclusive).
	// +optional
	// +default=443
	Port *int32 `json:"port,omitempty"`
}

// APIServiceSpec describes the group version an APIService registers and where it is served.
type APIServiceSpec struct {
	// Service is a reference to the service of the backend serving the group version. If
	// nil, the group version is served locally, by this server.
	// +optional
	Service *ServiceReference `json:"service,omitempty"`
	// Group is the API group name this APIService registers.
	// +optional
	Group string `json:"group,omitempty"`
	// Version is the API version this APIService registers, e.g. "v1".
	// +optional
	Version string `json:"version,omitempty"`
	// InsecureSkipTLSVerify disables TLS certificate verification when talking to the
	// backend. This is strongly discouraged; use CABundle instead.
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`
	// CABundle is a PEM encoded CA bundle used to validate the backend's serving certificate;
	// when empty, the server's default (the system roots or --proxy-endpoint-ca-file) is used.
	// +optional
	// +listType=atomic
	CABundle []byte `json:"caBundle,omitempty"`
	// GroupPriorityMinimum is the priority this group should have at least (1-20000); the
	// highest one of a group's APIServices orders the group in discovery, higher first.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum"`
	// VersionPriority orders this version within its group (1-1000), higher first; equal
	// priorities are ordered as Kubernetes versions ("v2" before "v1beta1").
	VersionPriority int32 `json:"versionPriority"`
}

// ConditionStatus is the status of a condition: "True", "False" or "Unknown".
type ConditionStatus string

// The condition statuses, as kube-aggregator's.
const (
	// ConditionTrue means the condition holds.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse means the condition does not hold.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown means it is not known whether the condition holds.
	ConditionUnknown ConditionStatus = "Unknown"
)

// APIServiceConditionType is a valid value for APIServiceCondition.Type.
type APIServiceConditionType string

// Available indicates that the service exists and is reachable.
const Available APIServiceConditionType = "Available"

// APIServiceCondition describes the state of an APIService at a particular point.
type APIServiceCondition struct {
	// Type is the type of the condition: Available.
	Type APIServiceConditionType `json:"type"`
	// Status is the status of the condition: True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is the last time the condition transitioned from one status to
	// another.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason is a unique, one-word, CamelCase reason for the condition's last transition,
	// e.g. Passed, Local, ServiceNotFound, FailedDiscoveryCheck.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable message indicating details about the last transition.
	// +optional
	Message string `json:"message,omitempty"`
}

// APIServiceStatus is the observed state of an APIService.
type APIServiceStatus struct {
	// Conditions are the current service state of the APIService.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []APIServiceCondition `json:"conditions,omitempty"`
}

// APIService represents a server for a particular GroupVersion. Its name must be
// "<version>.<group>".
//
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +apigen:nameValidation=PathSegment
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Service",type=string,JSONPath=`.spec.service.name`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type APIService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes the group version and where it is served.
	// +optional
	Spec APIServiceSpec `json:"spec,omitempty"`
	// Status is the observed state: whether the group version is available.
	// +optional
	Status APIServiceStatus `json:"status,omitempty"`
}

// APIServiceList is a list of APIService objects.
//
// +kubebuilder:object:root=true
type APIServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items is the list of APIServices.
	Items []APIService `json:"items"`
}

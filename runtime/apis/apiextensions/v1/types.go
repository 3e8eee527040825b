package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConversionStrategyType is how custom resources are converted between versions: None or
// Webhook.
type ConversionStrategyType string

const (
	// NoneConverter changes only the apiVersion of a custom resource when converting it.
	NoneConverter ConversionStrategyType = "None"
	// WebhookConverter calls the conversion webhook of spec.conversion.webhook.
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceCleanupFinalizer is the finalizer the extensions server adds to every
// CustomResourceDefinition and removes once every object of the resource is deleted, as
// kube-apiserver's.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// CustomResourceDefinitionSpec describes how a custom resource is served.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the resource ("stable.example.com"): the resource is served
	// under /apis/<group>/<version>/... It must be lowercase, contain a dot, and match the
	// CustomResourceDefinition's name (<names.plural>.<group>).
	Group string `json:"group"`
	// Names are the resource and kind names of the custom resource.
	Names CustomResourceDefinitionNames `json:"names"`
	// Scope is Cluster or Namespaced.
	Scope ResourceScope `json:"scope"`
	// Versions are the versions of the resource: exactly one is the storage version; each
	// may be served or not.
	// +listType=atomic
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion is how custom resources are converted between versions; the default is the
	// None strategy.
	// +optional
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields keeps fields the schema does not specify; in apiextensions.k8s.io/v1
	// it may only be false, as upstream (use x-kubernetes-preserve-unknown-fields instead).
	// +optional
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceConversion is how custom resources are converted between versions.
type CustomResourceConversion struct {
	// Strategy is None (only apiVersion changes) or Webhook (the webhook converts).
	Strategy ConversionStrategyType `json:"strategy"`
	// Webhook configures the conversion webhook when Strategy is Webhook.
	// +optional
	Webhook *WebhookConversion `json:"webhook,omitempty"`
}

// WebhookConversion configures a conversion webhook.
type WebhookConversion struct {
	// ClientConfig is how to call the webhook.
	// +optional
	ClientConfig *WebhookClientConfig `json:"clientConfig,omitempty"`
	// ConversionReviewVersions are the ConversionReview versions the webhook accepts.
	// +listType=atomic
	ConversionReviewVersions []string `json:"conversionReviewVersions"`
}

// WebhookClientConfig is how to connect to a webhook: a URL or a service reference.
type WebhookClientConfig struct {
	// URL is the webhook's location, https://host:port/path.
	// +optional
	URL *string `json:"url,omitempty"`
	// Service references the webhook's service.
	// +optional
	Service *ServiceReference `json:"service,omitempty"`
	// CABundle is the PEM CA bundle that validates the webhook's server certificate.
	// +optional
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference names a Service.
type ServiceReference struct {
	// Namespace is the service's namespace.
	Namespace string `json:"namespace"`
	// Name is the service's name.
	Name string `json:"name"`
	// Path is the URL path requests are sent to.
	// +optional
	Path *string `json:"path,omitempty"`
	// Port is the service's port; 443 when unset.
	// +optional
	Port *int32 `json:"port,omitempty"`
}

// CustomResourceDefinitionVersion describes one version of a custom resource.
type CustomResourceDefinitionVersion struct {
	// Name is the version's name ("v1", "v1beta1"), served at /apis/<group>/<name>; a DNS label.
	Name string `json:"name"`
	// Served says whether the version is served by the REST API.
	Served bool `json:"served"`
	// Storage says whether objects are stored in this version; exactly one version is.
	Storage bool `json:"storage"`
	// Deprecated marks the version deprecated: requests get a warning header.
	// +optional
	Deprecated bool `json:"deprecated,omitempty"`
	// DeprecationWarning replaces the default warning sent to clients of a deprecated
	// version; at most 256 characters.
	// +optional
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// Schema is the version's schema, used for validation, pruning and defaulting.
	// +optional
	Schema *CustomResourceValidation `json:"schema,omitempty"`
	// Subresources are the version's subresources (status, scale).
	// +optional
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// AdditionalPrinterColumns are the columns `kubectl get` shows besides NAME; none means
	// an AGE column.
	// +optional
	// +listType=atomic
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	// SelectableFields are the fields field selectors may name besides metadata.name and
	// metadata.namespace.
	// +optional
	// +listType=atomic
	SelectableFields []SelectableField `json:"selectableFields,omitempty"`
}

// SelectableField is a field of a custom resource field selectors may name.
type SelectableField struct {
	// JSONPath is a simple JSON path (".spec.color") to a string, integer or boolean field.
	JSONPath string `json:"jsonPath"`
}

// CustomResourceColumnDefinition is a column `kubectl get` shows.
type CustomResourceColumnDefinition struct {
	// Name is the column's human-readable name.
	Name string `json:"name"`
	// Type is the column's OpenAPI type: integer, number, string, boolean or date.
	Type string `json:"type"`
	// Format is the column's optional OpenAPI format (int32, int64, float, double, byte,
	// date, date-time, password...).
	// +optional
	Format string `json:"format,omitempty"`
	// Description is the column's human-readable description.
	// +optional
	Description string `json:"description,omitempty"`
	// Priority ranks the column: 0 is shown by default, greater ones with -o wide.
	// +optional
	Priority int32 `json:"priority,omitempty"`
	// JSONPath is a simple JSON path evaluated on each object to fill the column.
	JSONPath string `json:"jsonPath"`
}

// CustomResourceDefinitionNames are the names of a custom resource.
type CustomResourceDefinitionNames struct {
	// Plural is the resource's plural name, in the URL path (/apis/<group>/<version>/<plural>);
	// lowercase.
	Plural string `json:"plural"`
	// Singular is the resource's singular name; lowercase; defaults to the lowercased kind.
	// +optional
	Singular string `json:"singular,omitempty"`
	// ShortNames are short names kubectl accepts for the resource ("ct"); lowercase.
	// +optional
	// +listType=atomic
	ShortNames []string `json:"shortNames,omitempty"`
	// Kind is the objects' kind ("CronTab"), serialized as their kind.
	Kind string `json:"kind"`
	// ListKind is the lists' kind; defaults to "<Kind>List".
	// +optional
	ListKind string `json:"listKind,omitempty"`
	// Categories are the grouped resources the resource belongs to ("all"), for `kubectl get all`.
	// +optional
	// +listType=atomic
	Categories []string `json:"categories,omitempty"`
}

// ResourceScope is whether a custom resource is cluster-scoped or namespaced.
type ResourceScope string

const (
	// ClusterScoped resources live outside namespaces.
	ClusterScoped ResourceScope = "Cluster"
	// NamespaceScoped resources live in namespaces.
	NamespaceScoped ResourceScope = "Namespaced"
)

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

const (
	// ConditionTrue means the condition holds.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse means the condition does not hold.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown means the server cannot tell.
	ConditionUnknown ConditionStatus = "Unknown"
)

// CustomResourceDefinitionConditionType is the type of a CustomResourceDefinition condition.
type CustomResourceDefinitionConditionType string

const (
	// Established means the resource is served.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted means the names conflict with no other CustomResourceDefinition's.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema means a schema is not structural.
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating means the CustomResourceDefinition is being deleted: its objects are.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
	// KubernetesAPIApprovalPolicyConformant is upstream's condition for *.k8s.io groups.
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
)

// CustomResourceDefinitionCondition is one condition of a CustomResourceDefinition.
type CustomResourceDefinitionCondition struct {
	// Type is the condition's type (Established, NamesAccepted, Terminating...).
	Type CustomResourceDefinitionConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason is a CamelCase reason for the last transition.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable message about the last transition.
	// +optional
	Message string `json:"message,omitempty"`
	// ObservedGeneration is the metadata.generation the condition was set for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// CustomResourceDefinitionStatus is the observed state of a CustomResourceDefinition.
type CustomResourceDefinitionStatus struct {
	// Conditions are the CustomResourceDefinition's conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []CustomResourceDefinitionCondition `json:"conditions"`
	// AcceptedNames are the names actually served; they may differ from spec.names while a
	// name conflicts.
	// +optional
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// StoredVersions are every version objects were ever stored in.
	// +optional
	// +listType=atomic
	StoredVersions []string `json:"storedVersions"`
	// ObservedGeneration is the metadata.generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// CustomResourceDefinition defines a custom resource the server serves under
// /apis/<group>/<version>/<plural>; its name is <plural>.<group>. `kubectl get` prints NAME
// and CREATED AT, as for Kubernetes (runtime/apiextensions sets the table convertor).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=crd,categories=api-extensions
// +kubebuilder:subresource:status
type CustomResourceDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes how the resource is served.
	Spec CustomResourceDefinitionSpec `json:"spec"`
	// Status is the observed state of the definition, written by the server.
	// +optional
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionList is a list of CustomResourceDefinitions.
type CustomResourceDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the CustomResourceDefinitions.
	Items []CustomResourceDefinition `json:"items"`
}

// CustomResourceValidation is the schema of a version.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the OpenAPI v3 schema objects are validated, pruned and defaulted
	// with; it must be structural.
	// +optional
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Status enables the /status subresource: the main resource ignores status changes and
	// /status changes only status.
	// +optional
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Scale enables the /scale subresource (autoscaling/v1 Scale).
	// +optional
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables the status subresource; it has no fields.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps the scale subresource's fields to the custom resource.
type CustomResourceSubresourceScale struct {
	// SpecReplicasPath is the JSON path under .spec of Scale.spec.replicas (".spec.replicas").
	SpecReplicasPath string `json:"specReplicasPath"`
	// StatusReplicasPath is the JSON path under .status of Scale.status.replicas.
	StatusReplicasPath string `json:"statusReplicasPath"`
	// LabelSelectorPath is the JSON path under .status or .spec of Scale.status.selector, a
	// label selector in string form.
	// +optional
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty"`
}

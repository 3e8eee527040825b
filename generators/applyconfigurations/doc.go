// Package applyconfigurations is the generator of apply configurations, as Kubernetes'
// applyconfiguration-gen v0.37 writes them (the same exported API) when given the OpenAPI
// schema of the types, from the model apigen already loaded.
//
// In applyconfiguration/<group>/<version> of the tree of generated clients
// (generators/clientlayout), <Type>ApplyConfiguration is generated for every struct
// type of a version package reachable from a +genclient kind whose tags allow apply or
// applyStatus: fields become pointers (slices and maps stay), nested structs their apply
// configurations, metav1's ObjectMeta, TypeMeta, OwnerReference, Condition, LabelSelector and
// the like client-go's (k8s.io/client-go/applyconfigurations/meta/v1); each gets a
// constructor and With<Field> builders. A +genclient kind also gets Extract<Kind>,
// Extract<Kind>From and Extract<Kind><Subresource> (status, and every +genclient:method
// subresource), which read what a field manager owns through managedfields.ExtractInto.
//
// applyconfiguration/internal holds the structured-merge-diff schema (Parser) of every such
// type and what it reaches, converted from the OpenAPI definitions generators/openapi builds
// (the ones the server publishes) by kube-openapi's schemaconv, as applyconfiguration-gen
// converts its --openapi-schema; applyconfiguration/utils.go has ForKind and NewTypeConverter,
// which the fake clientset's NewClientset uses for server-side apply.
package applyconfigurations

package registry

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// ScaleOpenAPIDefinitions returns the OpenAPI schemas of autoscaling/v1 Scale, ScaleSpec and
// ScaleStatus, keyed by their model names ("io.k8s.api.autoscaling.v1.Scale"), as
// k8s.io/kubernetes' generated openapi package describes them (k8s.io/api ships no
// definitions). A group serving a ScaleStore merges them into its OpenAPIDefinitions; the
// schema of metav1.ObjectMeta comes from the group's own definitions.
func ScaleOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	scaleSpec, scaleStatus := autoscalingv1.ScaleSpec{}.OpenAPIModelName(), autoscalingv1.ScaleStatus{}.OpenAPIModelName()
	objectMeta := metav1.ObjectMeta{}.OpenAPIModelName()
	str := func(description string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Type: []string{"string"}, Format: ""}}
	}
	int32Schema := func(description string, def any) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Default: def, Type: []string{"integer"}, Format: "int32"}}
	}
	object := func(description string, def any, name string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Default: def, Ref: ref(name)}}
	}
	return map[string]common.OpenAPIDefinition{
		autoscalingv1.Scale{}.OpenAPIModelName(): {
			Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Description: "Scale represents a scaling request for a resource.",
				Type:        []string{"object"},
				Properties: map[string]spec.Schema{
					"kind":       str("Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"),
					"apiVersion": str("APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"),
					"metadata": object("Standard object metadata; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata.",
						map[string]any{}, objectMeta),
					"spec": object("spec defines the behavior of the scale. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.",
						map[string]any{}, scaleSpec),
					"status": object("status is the current status of the scale. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status. Read-only.",
						map[string]any{}, scaleStatus),
				},
			}},
			Dependencies: []string{objectMeta, scaleSpec, scaleStatus},
		},
		scaleSpec: {
			Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Description: "ScaleSpec describes the attributes of a scale subresource.",
				Type:        []string{"object"},
				Properties: map[string]spec.Schema{
					"replicas": int32Schema("replicas is the desired number of instances for the scaled object.", 0),
				},
			}},
		},
		scaleStatus: {
			Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Description: "ScaleStatus represents the current status of a scale subresource.",
				Type:        []string{"object"},
				Properties: map[string]spec.Schema{
					"replicas": int32Schema("replicas is the actual number of observed instances of the scaled object.", 0),
					"selector": str("selector is the label query over pods that should match the replicas count. This is same as the label selector but in the string format to avoid introspection by clients. The string will be in the same format as the query-param syntax. More info about label selectors: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"),
				},
				Required: []string{"replicas"},
			}},
		},
	}
}

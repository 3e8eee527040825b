// Package v1 contains API Schema definitions for the robots v1 API group.
// +kubebuilder:object:generate=true
// +groupName=robots.example.com
// +apigen:clients=all
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/internal/scheme"
)

var (
	// GroupVersion is group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: "robots.example.com", Version: "v1"}

	// SchemeBuilder is used to add go types to the GroupVersionKind scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types in this group-version to the given scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

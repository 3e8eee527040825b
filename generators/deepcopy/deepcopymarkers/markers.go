// Package deepcopymarkers registers the markers the deepcopy generator (generators/deepcopy)
// owns: controller-tools' object markers and code-generator's deepcopy-gen tags. It is a
// package of its own, beside the generator, so that the loader can read the registrations
// without importing the generator (whose tests load API packages).
package deepcopymarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "deepcopy"

// Register registers the deepcopy generator's markers in reg.
func Register(reg *markers.Registry) {
	reg.MustRegister(
		markers.Definition{Name: "kubebuilder:object:root", Level: markers.TypeLevel, Owner: Owner,
			Apply: markers.Flag("root", func(m *model.Markers) *bool { return &m.Root }),
			Help:  "The type is a root object (a kind or its list): it gets DeepCopyObject and is served."},
		markers.Definition{Name: "kubebuilder:object:generate", Level: markers.PackageLevel | markers.TypeLevel, Owner: Owner,
			Apply: markers.UnlessFalse("deepcopy"),
			Args:  "=true", Help: "Deepcopy functions are generated; =false is a warning, as apigen generates them for every type."},
		markers.Definition{Name: "k8s:deepcopy-gen", Level: markers.PackageLevel | markers.TypeLevel, Owner: Owner,
			Apply: markers.UnlessFalse("deepcopy"),
			Args:  "=package|true", Help: "Deepcopy functions are generated; =false is a warning, as apigen generates them for every type."},
		markers.Definition{Name: "k8s:deepcopy-gen:interfaces", Level: markers.TypeLevel, Owner: Owner, Apply: markers.DeepcopyInterfaces,
			Args: "=k8s.io/apimachinery/pkg/runtime.Object", Help: "The type is a root object, as +kubebuilder:object:root."},
		markers.Definition{Name: "k8s:deepcopy-gen:nonpointer-interfaces", Level: markers.TypeLevel, Owner: Owner,
			Unhonored: "apigen generates DeepCopyObject on pointer receivers only",
			Help:      "Asks for interface methods on value receivers; accepted with a warning."},
	)
}

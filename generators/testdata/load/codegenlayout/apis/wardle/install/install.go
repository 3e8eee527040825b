// Package install is written by hand, as sample-apiserver's.
package install

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/apigen-dev/apigen/generators/testdata/load/codegenlayout/apis/wardle"
	"github.com/apigen-dev/apigen/generators/testdata/load/codegenlayout/apis/wardle/v1alpha1"
)

// GroupName is declared by hand too: a generated file must not declare it again.
const GroupName = "wardle.example.com"

// Install registers the group.
func Install(scheme *runtime.Scheme) {
	utilruntime.Must(wardle.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	utilruntime.Must(scheme.SetVersionPriority(v1alpha1.SchemeGroupVersion))
}

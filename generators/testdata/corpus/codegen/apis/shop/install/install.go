// Package install installs the shop.example.com API group, making it available as an option
// to all API clients. It is written by hand, as Kubernetes' and sample-apiserver's install
// packages are; apigen generates NewAPIGroupInfo and the strategies beside it.
package install

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop"
	"github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop/v1"
	"github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop/v1beta1"
)

// Install registers the shop.example.com group's internal and versioned types with scheme,
// preferring v1.
func Install(scheme *runtime.Scheme) {
	utilruntime.Must(shop.AddToScheme(scheme))
	utilruntime.Must(v1.AddToScheme(scheme))
	utilruntime.Must(v1beta1.AddToScheme(scheme))
	utilruntime.Must(scheme.SetVersionPriority(v1.SchemeGroupVersion, v1beta1.SchemeGroupVersion))
}

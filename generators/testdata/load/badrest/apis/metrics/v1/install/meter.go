package install

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// newMeterREST is declared; Meter's status subresource is the error.
func newMeterREST(*runtime.Scheme, *registry.APIGroupInfo) (rest.Getter, error) { return nil, nil }

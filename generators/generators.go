// Package generators lists apigen's generators in the order `apigen generate` runs them.
package generators

import (
	"github.com/apigen-dev/apigen/generators/applyconfigurations"
	"github.com/apigen-dev/apigen/generators/clientset"
	"github.com/apigen-dev/apigen/generators/conversion"
	"github.com/apigen-dev/apigen/generators/crd"
	"github.com/apigen-dev/apigen/generators/deepcopy"
	"github.com/apigen-dev/apigen/generators/defaulting"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/equality"
	"github.com/apigen-dev/apigen/generators/informers"
	"github.com/apigen-dev/apigen/generators/install"
	"github.com/apigen-dev/apigen/generators/jsoncodec"
	"github.com/apigen-dev/apigen/generators/listers"
	"github.com/apigen-dev/apigen/generators/openapi"
	"github.com/apigen-dev/apigen/generators/register"
	"github.com/apigen-dev/apigen/generators/roundtrip"
	"github.com/apigen-dev/apigen/generators/samples"
	"github.com/apigen-dev/apigen/generators/validation"
)

// All returns every generator, in the fixed order `apigen generate` runs them: deepcopy,
// equality, json, register, defaulting, conversion, validation, openapi, install, the
// install package's round-trip test (roundtrip), then the
// typed clients of +genclient kinds: clientset, listers, informers, applyconfigurations, and
// last the CustomResourceDefinitions (crd) and a sample object of each of their versions
// (samples). Each call returns new values.
func All() []emit.Generator {
	return []emit.Generator{
		deepcopy.New(),
		equality.New(),
		jsoncodec.New(),
		register.New(),
		defaulting.New(),
		conversion.New(),
		validation.New(),
		openapi.New(),
		install.New(),
		roundtrip.New(),
		clientset.New(),
		listers.New(),
		informers.New(),
		applyconfigurations.New(),
		crd.New(),
		samples.New(),
	}
}

package app

import (
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// AdmissionPlugins is the registry of admission plugins a server may enable, as
// kube-apiserver's admission.Plugins: a generated server's main registers its own before
// calling Main, e.g.
//
//	app.AdmissionPlugins.Register("DatabaseLabels", true, newDatabaseLabels)
var AdmissionPlugins = &admission.Plugins{}

// AdmissionOptions are kube-apiserver's admission flags.
type AdmissionOptions struct {
	// EnableAdmissionPlugins and DisableAdmissionPlugins adjust the plugins on by default;
	// they run in registration order whatever the order of the flags.
	EnableAdmissionPlugins  []string
	DisableAdmissionPlugins []string
}

// AddFlags registers the options on fs.
func (o *AdmissionOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.EnableAdmissionPlugins, "enable-admission-plugins", o.EnableAdmissionPlugins, "admission plugins to enable besides those on by default (registered: see the server's documentation)")
	fs.StringSliceVar(&o.DisableAdmissionPlugins, "disable-admission-plugins", o.DisableAdmissionPlugins, "admission plugins to disable, even if on by default")
}

// buildAdmission builds the chain the flags select from AdmissionPlugins and sets it on every
// Store of infos, and gives plugins that want listers (admission.WantsListers) the stores'
// lists. The chain is returned for the stores built outside infos (the extensions server's
// CRDs and custom resources, the aggregator's APIServices) to run the same chain. Errors: an
// unknown plugin, a plugin both enabled and disabled, a factory's error.
func buildAdmission(o *AdmissionOptions, infos []*registry.APIGroupInfo) (*admission.Chain, error) {
	if err := registerDynamicAdmissionPlugins(); err != nil {
		return nil, err
	}
	chain, err := AdmissionPlugins.NewChain(o.EnableAdmissionPlugins, o.DisableAdmissionPlugins)
	if err != nil {
		return nil, err
	}
	listers := map[schema.GroupResource]rest.Lister{}
	for _, info := range infos {
		for _, resources := range info.VersionedResourcesStorageMap {
			for name, s := range resources {
				if store, ok := s.(*registry.Store); ok {
					store.Admission = chain
					listers[schema.GroupResource{Group: info.Group, Resource: name}] = store
				}
			}
		}
	}
	for _, p := range chain.Plugins() {
		if w, ok := p.(admission.WantsListers); ok {
			w.SetListers(func(gr schema.GroupResource) rest.Lister { return listers[gr] })
		}
	}
	return chain, nil
}

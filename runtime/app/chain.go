package app

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/aggregator"
	"github.com/apigen-dev/apigen/runtime/apiextensions"
	"github.com/apigen-dev/apigen/runtime/server"
)

// The --runtime-config names of the APIs of the chain's first and last links.
const (
	apiregistrationV1 = "apiregistration.k8s.io/v1"
	apiextensionsV1   = "apiextensions.k8s.io/v1"
)

// chainConfig is what every link of the delegation chain shares.
type chainConfig struct {
	// server configures each link's runtime/server.Server; only the first link's filters run.
	server server.Config
	// scheme is the chain's one scheme; storage creates every link's storage.
	scheme  *runtime.Scheme
	storage storageFactory
	// admission is run on the writes of every link's resources.
	admission *admission.Chain
}

// chain is the delegation chain buildChain returns.
type chain struct {
	// top is the first link: the aggregator, or typed when apiregistration.k8s.io/v1 is off.
	top *server.Server
	// typed serves the typed groups.
	typed *server.Server
	// extensions serves CRDs and their custom resources; nil when apiextensions.k8s.io/v1 is
	// off.
	extensions *apiextensions.Extensions
}

// buildChain builds the delegation chain in one place, from its end to its first link, as
// kube-apiserver's CreateServerChain:
//
//	aggregator (APIServices; proxies to other servers) -> typed groups (infos) ->
//	extensions (CRDs, custom resources) -> not found
//
// Each link is built once the one after it exists, as it delegates to it: the extensions
// server first (its own groups; the admission chain the built-in table built), then the typed
// link, on which installTyped (buildServer's: wiring.serve, the serve steps of the built-in
// table, builtin.go, its routes among them) installs the typed groups and their hooks before
// it gets a link in front of it, then the aggregator, whose proxy needs the typed link to
// delegate to. The table's chained steps (the garbage collector, the leader-elected
// controllers' hook) run on the result. --runtime-config leaves the aggregator or the
// extensions server out by turning off their API (a request for a custom resource then
// reaches not found). When namespaces are served (namespaces not nil), the namespace
// controller deletes the custom resources of a terminating namespace too.
func buildChain(opts *Options, cfg chainConfig, namespaces *coreNamespaces, installTyped func(*server.Server) error) (*chain, error) {
	c := &chain{}
	var next server.DelegationTarget = server.NewEmptyDelegate()
	if opts.RuntimeConfigEnabled(apiextensionsV1) {
		ext, err := apiextensions.New(apiextensions.Config{Server: cfg.server, Scheme: cfg.scheme, Storage: cfg.storage,
			Admission: cfg.admission, Delegate: next})
		if err != nil {
			return nil, err
		}
		if namespaces != nil {
			namespaces.Controller().AddContentDeleter(ext.Handler)
		}
		c.extensions, next = ext, ext.Server
	}
	c.typed = server.New(cfg.server, next)
	if err := installTyped(c.typed); err != nil {
		return nil, err
	}
	c.top = c.typed
	if !opts.RuntimeConfigEnabled(apiregistrationV1) {
		if len(opts.ProxyEndpoints) > 0 {
			return nil, fmt.Errorf("--proxy-endpoint needs %s, turned off by --runtime-config", apiregistrationV1)
		}
		return c, nil
	}
	acfg, err := aggregatorConfig(opts, cfg.server, cfg.scheme, cfg.storage, cfg.admission)
	if err != nil {
		return nil, err
	}
	agg, err := aggregator.NewServer(acfg, c.typed)
	if err != nil {
		return nil, fmt.Errorf("cannot build API group %s: %w", apiregistrationV1, err)
	}
	c.top = agg.Server
	return c, nil
}

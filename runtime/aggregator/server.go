package aggregator

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
)

// ControllersHookName is the post-start hook that registers ServerConfig.Register and runs
// the aggregator's controllers, named as kube-aggregator's.
const ControllersHookName = "apiservice-registration-controller"

// ServerConfig configures NewServer: the first link of the delegation chain.
type ServerConfig struct {
	// Server configures the link's runtime/server.Server. As the first link, its filters
	// (authentication, authorization, audit, limits: the whole handler chain) run for every
	// request that reaches the chain.
	Server server.Config
	// Scheme is the chain's shared scheme: apiregistration.k8s.io/v1 is installed into it.
	Scheme *runtime.Scheme
	// Storage creates the APIService storage; required.
	Storage registry.StorageFactory
	// Admission is run on every write of APIServices; nil admits everything.
	Admission *admission.Chain
	// Proxy configures the proxy and its controllers. NewServer fills its APIServices,
	// Status, Delegate and LocalGroups (the groups of the links behind this one) and its Log
	// (Server.Logger) when nil.
	Proxy Config
	// Register lists APIServices made to exist, as given, before the controllers run (the
	// --proxy-endpoint ones): kube-apiserver's autoregistered "onstart" APIServices.
	Register []*apiregv1.APIService
}

// Server is the aggregator link, as kube-aggregator's APIAggregator: a runtime/server.Server
// serving apiregistration.k8s.io/v1 APIServices, whose proxy handler (the Aggregator) proxies
// the group versions of APIServices with a spec.service and hands every other request to the
// delegate.
type Server struct {
	// Server is the link, with the post-start hook ControllersHookName.
	Server *server.Server
	// Aggregator is the proxy and its availability and autoregistration controllers.
	Aggregator *Aggregator
}

// NewServer builds the aggregator link in front of delegate, as kube-aggregator's
// NewWithDelegate (and shaped as runtime/apiextensions.New): it installs
// apiregistration.k8s.io/v1 into cfg.Scheme, with upstream's `kubectl get apiservices`
// columns, sets the Aggregator as the link's proxy handler, registers its
// aggregator_unavailable_apiservice gauge with the link's metrics, and adds the post-start
// hook that registers cfg.Register and starts the controllers; the hook returns once the
// APIServices are listed, so the server is ready only when proxying follows them. Errors: a
// missing scheme, storage or delegate, and the Aggregator's (see New).
func NewServer(cfg ServerConfig, delegate server.DelegationTarget) (*Server, error) {
	if cfg.Scheme == nil || cfg.Storage == nil || delegate == nil {
		return nil, errors.New("cannot build the aggregator: a scheme, a storage factory and a delegate are required")
	}
	info, err := install.NewAPIGroupInfo(cfg.Scheme, cfg.Storage)
	if err != nil {
		return nil, fmt.Errorf("cannot build the aggregator: %w", err)
	}
	store, ok := info.VersionedResourcesStorageMap[apiregv1.SchemeGroupVersion.Version]["apiservices"].(*registry.Store)
	if !ok {
		return nil, errors.New("cannot build the aggregator: the generated APIService storage is not a registry.Store")
	}
	store.TableConvertor = TableConvertor // upstream's columns, beyond what JSONPath can print
	store.Admission = cfg.Admission
	acfg := cfg.Proxy
	if acfg.APIServices, acfg.Status, err = StoresFrom(info); err != nil {
		return nil, fmt.Errorf("cannot build the aggregator: %w", err)
	}
	acfg.Delegate = delegate.UnprotectedHandler()
	acfg.LocalGroups = func() []metav1.APIGroup { return chainGroups(delegate, info.Group) }
	if acfg.Log == nil {
		acfg.Log = cfg.Server.Logger
	}
	agg, err := New(acfg)
	if err != nil {
		return nil, err
	}
	s := &Server{Server: server.New(cfg.Server, delegate), Aggregator: agg}
	if err := s.Server.InstallAPIGroups(info); err != nil {
		return nil, fmt.Errorf("cannot build the aggregator: %w", err)
	}
	if err := s.Server.SetProxyHandler(agg); err != nil {
		return nil, err
	}
	if err := s.Server.Metrics().Registry.Register(agg.Collector()); err != nil {
		return nil, err
	}
	register := cfg.Register
	if err := s.Server.AddPostStartHook(ControllersHookName, func(ctx context.Context) error {
		for _, svc := range register {
			if err := agg.Ensure(ctx, svc); err != nil {
				return fmt.Errorf("cannot register the APIService %s: %w", svc.Name, err)
			}
		}
		go agg.Run(ctx)
		return agg.WaitForSync(ctx)
	}); err != nil {
		return nil, err
	}
	return s, nil
}

// chainGroups returns the groups served by the links from next on that list theirs (the
// core group "" among them when a link serves it, as kube registers "v1."), and the
// aggregator's own group (apiregistration), each once: the group versions that get a Local
// APIService.
func chainGroups(next server.DelegationTarget, own string) []metav1.APIGroup {
	gv := apiregv1.SchemeGroupVersion
	out := []metav1.APIGroup{{Name: own, Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: gv.String(), Version: gv.Version}}}}
	seen := map[string]bool{own: true}
	for link := next; link != nil; link = link.NextDelegate() {
		if cl, ok := link.(interface{ CoreVersions() []string }); ok && !seen[""] {
			if versions := cl.CoreVersions(); len(versions) > 0 {
				seen[""] = true
				core := metav1.APIGroup{}
				for _, v := range versions {
					core.Versions = append(core.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
				}
				out = append(out, core)
			}
		}
		gl, ok := link.(interface{ APIGroups() []metav1.APIGroup })
		if !ok {
			continue
		}
		for _, g := range gl.APIGroups() {
			if !seen[g.Name] {
				seen[g.Name] = true
				out = append(out, g)
			}
		}
	}
	return out
}

package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/aggregator"
	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	apireginstall "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
)

// AggregatorOptions are the flags of the first link of the delegation chain, named as
// kube-apiserver's where one exists.
type AggregatorOptions struct {
	// ProxyEndpoints are group versions served by other servers, for running outside a
	// cluster: "<group>/<version>=https://host:port". On start the server creates or updates
	// the APIService "<version>.<group>" of each, naming the Service
	// kube-system/apigen-proxy-endpoint-<i> on the URL's port, which resolves to the URL (see
	// aggregator.StaticResolver).
	ProxyEndpoints []string
	// ProxyClientCertFile and ProxyClientKeyFile are the front-proxy client certificate
	// presented to backends, as kube-apiserver's --proxy-client-cert-file; without it nothing
	// is proxied.
	ProxyClientCertFile string
	ProxyClientKeyFile  string
	// ProxyEndpointCAFile is the caBundle of the APIServices made from ProxyEndpoints,
	// verifying their serving certificates; empty uses the system roots.
	ProxyEndpointCAFile string
}

// AddFlags registers the options on fs.
func (o *AggregatorOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.ProxyEndpoints, "proxy-endpoint", o.ProxyEndpoints, "a group version served by another server, <group>/<version>=https://host:port; the server registers an APIService for it on start, and proxies every request under /apis/<group>/<version> to it (repeatable)")
	fs.StringVar(&o.ProxyClientCertFile, "proxy-client-cert-file", o.ProxyClientCertFile, "client certificate presented to the servers of APIServices, which trust it with --requestheader-client-ca-file")
	fs.StringVar(&o.ProxyClientKeyFile, "proxy-client-key-file", o.ProxyClientKeyFile, "private key of --proxy-client-cert-file")
	fs.StringVar(&o.ProxyEndpointCAFile, "proxy-endpoint-ca-file", o.ProxyEndpointCAFile, "CA bundle verifying the serving certificates of --proxy-endpoint servers (the caBundle of their APIServices); empty uses the system roots")
}

// validate reports the options' errors.
func (o *AggregatorOptions) validate(plainHTTP bool) []string {
	var errs []string
	for _, e := range o.ProxyEndpoints {
		if _, err := aggregator.ParseBackend(e); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(o.ProxyEndpoints) > 0 {
		if plainHTTP {
			errs = append(errs, "--proxy-endpoint needs --plain-http=false: the caller's identity is only known, and passed on, when authenticated")
		}
		if o.ProxyClientCertFile == "" || o.ProxyClientKeyFile == "" {
			errs = append(errs, "--proxy-endpoint needs --proxy-client-cert-file and --proxy-client-key-file")
		}
	}
	if (o.ProxyClientCertFile == "") != (o.ProxyClientKeyFile == "") {
		errs = append(errs, "--proxy-client-cert-file and --proxy-client-key-file go together")
	}
	return errs
}

// apiregistrationV1 is the --runtime-config name of the APIService API.
const apiregistrationV1 = "apiregistration.k8s.io/v1"

// withAggregator puts the aggregator in front of typed, as kube-apiserver's CreateServerChain
// puts the AggregatorServer in front of the KubeAPIServer: a server serving
// apiregistration.k8s.io/v1 APIServices whose proxy handler (aggregator.Aggregator) proxies
// the group versions of APIServices with a spec.service and hands the rest to typed. Its
// post-start hook registers the --proxy-endpoint APIServices and starts the aggregator's
// controllers (Local APIServices for typed's groups, availability). cfg configures the new
// first link (authentication and the handler chain run there). With apiregistration.k8s.io/v1
// turned off by --runtime-config it returns typed itself, and --proxy-endpoint is an error.
// In --plain-http mode, and without --proxy-client-cert-file, the API is served but nothing is
// proxied: every APIService with a service is Available=False, reason ProxyDisabled.
func withAggregator(typed *server.Server, cfg server.Config, opts *Options, scheme *runtime.Scheme, factory registry.StorageFactory) (*server.Server, error) {
	o := &opts.AggregatorOptions
	if !opts.RuntimeConfigEnabled(apiregistrationV1) {
		if len(o.ProxyEndpoints) > 0 {
			return nil, fmt.Errorf("--proxy-endpoint needs %s, turned off by --runtime-config", apiregistrationV1)
		}
		return typed, nil
	}
	info, err := apireginstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		return nil, fmt.Errorf("cannot build API group %s: %w", apiregistrationV1, err)
	}
	if s, ok := info.VersionedResourcesStorageMap["v1"]["apiservices"].(*registry.Store); ok {
		s.TableConvertor = aggregator.TableConvertor // upstream's columns, beyond what JSONPath can print
	}
	if err := applyAdmission(&opts.AdmissionOptions, []*registry.APIGroupInfo{info}); err != nil {
		return nil, err
	}
	store, status, err := aggregator.StoresFrom(info)
	if err != nil {
		return nil, err
	}
	flagServices, resolver, err := proxyEndpointServices(o)
	if err != nil {
		return nil, err
	}
	acfg := aggregator.Config{APIServices: store, Status: status, Resolver: resolver, Log: cfg.Logger,
		Delegate: typed.UnprotectedHandler(), LocalGroups: func() []metav1.APIGroup { return chainGroups(typed, info.Group) }}
	switch {
	case opts.PlainHTTP:
		acfg.ProxyDisabled = "the server serves plain HTTP (--plain-http) and cannot pass callers' identities on to backends"
	case o.ProxyClientCertFile == "":
		acfg.ProxyDisabled = "the server has no front-proxy client certificate (--proxy-client-cert-file) to present to backends"
	default:
		clientCert, err := tls.LoadX509KeyPair(o.ProxyClientCertFile, o.ProxyClientKeyFile)
		if err != nil {
			return nil, fmt.Errorf("cannot load --proxy-client-cert-file: %w", err)
		}
		acfg.ClientCert = &clientCert
	}
	agg, err := aggregator.New(acfg)
	if err != nil {
		return nil, err
	}
	top := server.New(cfg, typed)
	if err := top.InstallAPIGroups(info); err != nil {
		return nil, err
	}
	if err := top.SetProxyHandler(agg); err != nil {
		return nil, err
	}
	if err := top.Metrics().Registry.Register(agg.Collector()); err != nil {
		return nil, err
	}
	if err := top.AddPostStartHook("apiservice-registration-controller", func(ctx context.Context) error {
		for _, s := range flagServices {
			if err := agg.Ensure(ctx, s); err != nil {
				return fmt.Errorf("cannot register the APIService %s of --proxy-endpoint: %w", s.Name, err)
			}
		}
		go agg.Run(ctx)
		return agg.WaitForSync(ctx)
	}); err != nil {
		return nil, err
	}
	return top, nil
}

// proxyEndpointServices returns the APIServices the --proxy-endpoint values stand for and the
// resolver mapping their Services to the values' URLs (see aggregator.StaticResolver). Each
// is labelled autoregistered "onstart", with group priority 1000 and version priority 100,
// 99, ... in the order a group's values are given. Errors: an invalid value or an unreadable
// --proxy-endpoint-ca-file.
func proxyEndpointServices(o *AggregatorOptions) ([]*apiregv1.APIService, aggregator.StaticResolver, error) {
	resolver := aggregator.StaticResolver{}
	var caBundle []byte
	if o.ProxyEndpointCAFile != "" && len(o.ProxyEndpoints) > 0 {
		var err error
		if caBundle, err = os.ReadFile(o.ProxyEndpointCAFile); err != nil {
			return nil, nil, fmt.Errorf("cannot read --proxy-endpoint-ca-file: %w", err)
		}
	}
	var out []*apiregv1.APIService
	perGroup := map[string]int32{}
	for i, e := range o.ProxyEndpoints {
		b, err := aggregator.ParseBackend(e)
		if err != nil {
			return nil, nil, err
		}
		name, port := aggregator.ProxyEndpointServiceName(i), b.Port()
		resolver[aggregator.ServiceKey{Namespace: aggregator.ProxyEndpointNamespace, Name: name, Port: port}] = b.URL
		out = append(out, &apiregv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: b.Name(), Labels: map[string]string{aggregator.AutoManagedLabel: "onstart"}},
			Spec: apiregv1.APIServiceSpec{
				Service: &apiregv1.ServiceReference{Namespace: aggregator.ProxyEndpointNamespace, Name: name, Port: &port},
				Group:   b.GroupVersion.Group, Version: b.GroupVersion.Version, CABundle: caBundle,
				GroupPriorityMinimum: 1000, VersionPriority: max(100-perGroup[b.GroupVersion.Group], 1),
			},
		})
		perGroup[b.GroupVersion.Group]++
	}
	return out, resolver, nil
}

// chainGroups returns the groups served by typed and the links behind it that list theirs
// (the core group "" among them when a link serves it, as kube registers "v1."), and the
// aggregator's own group (apiregistration), each once: the group versions that get a Local
// APIService.
func chainGroups(typed server.DelegationTarget, own string) []metav1.APIGroup {
	out := []metav1.APIGroup{{Name: own, Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: apiregistrationV1, Version: "v1"}}}}
	seen := map[string]bool{own: true}
	for link := typed; link != nil; link = link.NextDelegate() {
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

package app

import (
	"crypto/tls"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/aggregator"
	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
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

// aggregatorConfig returns the configuration of the aggregator link (see aggregator.NewServer)
// that the flags select, cfg configuring its server (the first link: authentication and the
// handler chain run there). In --plain-http mode, and without --proxy-client-cert-file, the
// API is served but nothing is proxied: every APIService with a service is Available=False,
// reason ProxyDisabled. Errors: an invalid --proxy-endpoint or unreadable certificate files.
func aggregatorConfig(opts *Options, cfg server.Config, scheme *runtime.Scheme, factory registry.StorageFactory, chain *admission.Chain) (aggregator.ServerConfig, error) {
	o := &opts.AggregatorOptions
	flagServices, resolver, err := proxyEndpointServices(o)
	if err != nil {
		return aggregator.ServerConfig{}, err
	}
	acfg := aggregator.ServerConfig{Server: cfg, Scheme: scheme, Storage: factory, Admission: chain,
		Proxy: aggregator.Config{Resolver: resolver}, Register: flagServices}
	switch {
	case opts.PlainHTTP:
		acfg.Proxy.ProxyDisabled = "the server serves plain HTTP (--plain-http) and cannot pass callers' identities on to backends"
	case o.ProxyClientCertFile == "":
		acfg.Proxy.ProxyDisabled = "the server has no front-proxy client certificate (--proxy-client-cert-file) to present to backends"
	default:
		clientCert, err := tls.LoadX509KeyPair(o.ProxyClientCertFile, o.ProxyClientKeyFile)
		if err != nil {
			return aggregator.ServerConfig{}, fmt.Errorf("cannot load --proxy-client-cert-file: %w", err)
		}
		acfg.Proxy.ClientCert = &clientCert
	}
	return acfg, nil
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

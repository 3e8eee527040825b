package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"

	"github.com/spf13/pflag"
	"k8s.io/client-go/util/cert"

	"github.com/apigen-dev/apigen/runtime/aggregator"
	"github.com/apigen-dev/apigen/runtime/server"
)

// AggregatorOptions are the flags of the first link of the delegation chain, named as
// kube-apiserver's where one exists.
type AggregatorOptions struct {
	// ProxyEndpoints register group versions served by other servers:
	// "<group>/<version>=https://host:port" (standing in for APIService objects).
	ProxyEndpoints []string
	// ProxyClientCertFile and ProxyClientKeyFile are the front-proxy client certificate
	// presented to those servers, as kube-apiserver's --proxy-client-cert-file.
	ProxyClientCertFile string
	ProxyClientKeyFile  string
	// ProxyEndpointCAFile verifies their serving certificates (an APIService's caBundle);
	// empty uses the system roots.
	ProxyEndpointCAFile string
}

// AddFlags registers the options on fs.
func (o *AggregatorOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.ProxyEndpoints, "proxy-endpoint", o.ProxyEndpoints, "a group version served by another server, <group>/<version>=https://host:port; every request under /apis/<group>/<version> is proxied to it (repeatable)")
	fs.StringVar(&o.ProxyClientCertFile, "proxy-client-cert-file", o.ProxyClientCertFile, "client certificate presented to --proxy-endpoint servers, which trust it with --requestheader-client-ca-file")
	fs.StringVar(&o.ProxyClientKeyFile, "proxy-client-key-file", o.ProxyClientKeyFile, "private key of --proxy-client-cert-file")
	fs.StringVar(&o.ProxyEndpointCAFile, "proxy-endpoint-ca-file", o.ProxyEndpointCAFile, "CA bundle verifying the serving certificates of --proxy-endpoint servers; empty uses the system roots")
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
	return errs
}

// withAggregator puts an aggregator in front of typed when proxy endpoints are given, as
// kube-apiserver's CreateServerChain puts the AggregatorServer in front of the KubeAPIServer;
// it returns typed itself otherwise. cfg configures the new first link (authentication and
// the handler chain run there).
func withAggregator(typed *server.Server, cfg server.Config, o *AggregatorOptions) (*server.Server, error) {
	if len(o.ProxyEndpoints) == 0 {
		return typed, nil
	}
	var backends []aggregator.Backend
	for _, e := range o.ProxyEndpoints {
		b, err := aggregator.ParseBackend(e)
		if err != nil {
			return nil, err
		}
		backends = append(backends, b)
	}
	clientCert, err := tls.LoadX509KeyPair(o.ProxyClientCertFile, o.ProxyClientKeyFile)
	if err != nil {
		return nil, fmt.Errorf("cannot load --proxy-client-cert-file: %w", err)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{clientCert}}
	if o.ProxyEndpointCAFile != "" {
		if tlsConfig.RootCAs, err = cert.NewPool(o.ProxyEndpointCAFile); err != nil {
			return nil, fmt.Errorf("cannot read --proxy-endpoint-ca-file: %w", err)
		}
	}
	agg, err := aggregator.New(aggregator.Config{Backends: backends, Log: cfg.Logger,
		Transport: &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true}})
	if err != nil {
		return nil, err
	}
	top := server.New(cfg, typed)
	handler := agg.Handler()
	for _, g := range agg.Groups() {
		if err := top.AddProxiedGroup(g, handler); err != nil {
			return nil, err
		}
	}
	if err := top.Metrics().Registry.Register(agg.Collector()); err != nil {
		return nil, err
	}
	if err := top.AddPostStartHook("apiservice-status-available-controller", func(ctx context.Context) error {
		go agg.Run(ctx)
		return nil
	}); err != nil {
		return nil, err
	}
	return top, nil
}

package aggregator

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ServiceResolver finds where the Service an APIService names is served, as kube-aggregator's
// ServiceResolver.
type ServiceResolver interface {
	// ResolveEndpoint returns the base URL (https://host:port) of the Service namespace/name on
	// port. Errors: ErrServiceNotFound (wrapped) when the resolver knows no such Service; any
	// other error when the Service has no address now.
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// ErrServiceNotFound is what a ServiceResolver returns (wrapped) for a Service it does not know;
// the APIService is then Available=False with reason ServiceNotFound, as kube-aggregator's
// availability controller reports a missing Service.
var ErrServiceNotFound = errors.New("service not found")

// ProxyEndpointNamespace is the namespace of the Services that --proxy-endpoint values stand
// for; see StaticResolver.
const ProxyEndpointNamespace = "kube-system"

// StaticResolver is the out-of-cluster ServiceResolver: a fixed map from Service to URL, built
// from --proxy-endpoint values. Outside a cluster there are no Services, so each
// --proxy-endpoint stands for one, named ProxyEndpointServiceName(i) in ProxyEndpointNamespace
// on the URL's port, and resolves to the URL itself, as kube-apiserver's default
// (--enable-aggregator-routing=false) resolution maps a Service to its ClusterIP. A Service
// the map lacks is ErrServiceNotFound. The zero value knows no Service.
type StaticResolver map[ServiceKey]*url.URL

// ServiceKey names a Service port: namespace, name and port.
type ServiceKey struct {
	Namespace, Name string
	Port            int32
}

// ResolveEndpoint returns the URL of the Service port, or an error wrapping ErrServiceNotFound.
func (r StaticResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if u, ok := r[ServiceKey{Namespace: namespace, Name: name, Port: port}]; ok {
		c := *u
		return &c, nil
	}
	return nil, fmt.Errorf("service/%s in %q on port %d: %w", name, namespace, port, ErrServiceNotFound)
}

// ProxyEndpointServiceName is the Service name the i-th (0-based) --proxy-endpoint value stands
// for: "apigen-proxy-endpoint-<i>".
func ProxyEndpointServiceName(i int) string { return "apigen-proxy-endpoint-" + strconv.Itoa(i) }

// Backend is a group version served by another server, as a --proxy-endpoint value names it.
type Backend struct {
	GroupVersion schema.GroupVersion
	// URL is the backend server's base URL, e.g. https://127.0.0.1:8443.
	URL *url.URL
}

// Name is the backend's APIService name: "<version>.<group>", e.g. "v1.test.apigen.dev".
func (b Backend) Name() string { return b.GroupVersion.Version + "." + b.GroupVersion.Group }

// Port is the port of the backend's URL, 443 when the URL names none.
func (b Backend) Port() int32 {
	p, err := strconv.ParseInt(b.URL.Port(), 10, 32)
	if err != nil || p <= 0 {
		return 443
	}
	return int32(p)
}

// ParseBackend parses a --proxy-endpoint value, "<group>/<version>=<https url>".
// Errors: a value of another shape, an empty group or version, a URL that is not https or
// has an invalid port.
func ParseBackend(s string) (Backend, error) {
	gvs, raw, ok := strings.Cut(s, "=")
	group, version, ok2 := strings.Cut(gvs, "/")
	if !ok || !ok2 || group == "" || version == "" {
		return Backend{}, fmt.Errorf("--proxy-endpoint %q: write <group>/<version>=https://host:port", s)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return Backend{}, fmt.Errorf("--proxy-endpoint %q: %q is not an https://host:port URL", s, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return Backend{}, fmt.Errorf("--proxy-endpoint %q: invalid port %q", s, p)
		}
	} else {
		u.Host = net.JoinHostPort(u.Hostname(), "443")
	}
	return Backend{GroupVersion: schema.GroupVersion{Group: group, Version: version}, URL: u}, nil
}

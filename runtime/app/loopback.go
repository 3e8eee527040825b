package app

import (
	"errors"
	"net"
	"strconv"
	"sync"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// loopback is the server's client configuration for requests to itself, as kube-apiserver's
// LoopbackClientConfig: the address it listens on, the loopback token (auth.Loopback, user
// system:apiserver in system:masters) and the serving CA. It is known once the server
// listens (set), before any post-start hook runs (config).
type loopback struct {
	mu  sync.Mutex
	cfg *rest.Config
}

// set configures the client for the listener at addr. A wildcard bind address (0.0.0.0,
// ::) is reached through the loopback interface. With the self-signed certificate the
// client verifies it with the CA, by its name "localhost"; with a certificate given by
// --tls-cert-file, which need not name a loopback address, it does not verify it: the
// connection goes to this process's own port on this host, which no other process holds.
func (l *loopback) set(addr net.Addr, sec *security) {
	tcp, _ := addr.(*net.TCPAddr)
	host := "127.0.0.1"
	if tcp != nil && !tcp.IP.IsUnspecified() {
		host = tcp.IP.String()
	} else if tcp != nil && tcp.IP.To4() == nil {
		host = "::1"
	}
	port := 0
	if tcp != nil {
		port = tcp.Port
	}
	cfg := &rest.Config{Host: "http://" + net.JoinHostPort(host, strconv.Itoa(port)), UserAgent: "apigen-loopback",
		QPS: 50, Burst: 100}
	if sec.tls != nil {
		cfg.Host = "https://" + net.JoinHostPort(host, strconv.Itoa(port))
		cfg.BearerToken = sec.loopbackToken
		if sec.caFile != "" {
			cfg.TLSClientConfig = rest.TLSClientConfig{CAFile: sec.caFile, ServerName: "localhost"}
		} else {
			cfg.TLSClientConfig = rest.TLSClientConfig{Insecure: true}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cfg = cfg
}

// config returns a copy of the configuration, nil before set.
func (l *loopback) config() *rest.Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg == nil {
		return nil
	}
	return rest.CopyConfig(l.cfg)
}

// loopbackClients are the client-go typed clients of the server's own built-in APIs its
// controllers use. (Not client-go's whole kubernetes.Clientset: it would link every group's
// client into every server, some 40 MB of binary.)
type loopbackClients struct {
	core         corev1client.CoreV1Interface
	coordination coordinationv1client.CoordinationV1Interface
}

// clients returns the typed clients of the server's own APIs. Errors: before set.
func (l *loopback) clients() (*loopbackClients, error) {
	cfg := l.config()
	if cfg == nil {
		return nil, errors.New("the loopback client is not configured: the server does not listen yet")
	}
	// JSON, which the server reads as it is, rather than the typed clients' protobuf, which it
	// reads through a transcoder (runtime/serializer/protobuf) that it would otherwise build at
	// start for its own Leases.
	cfg.ContentType = "application/json"
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	coordination, err := coordinationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &loopbackClients{core: core, coordination: coordination}, nil
}

package bench

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
)

// Endpoint is one replica of the server: its base URL, e.g. "https://127.0.0.1:6443", and
// its TLS configuration (nil for plain HTTP), see NewAPIClient. Replicas that each wrote
// their own kubeconfig have a CA and admin certificate each.
type Endpoint struct {
	URL string
	TLS *tls.Config
}

// RoundRobin spreads the requests of many clients over several replicas of the server, as
// one client-side round robin: the n-th request sent through any of its transports goes to
// replica n mod len(replicas), whatever server its URL names. It is safe for concurrent use.
type RoundRobin struct {
	replicas []Endpoint
	urls     []*url.URL
	// sent counts the requests picked a replica so far.
	sent atomic.Uint64
}

// NewRoundRobin returns a round robin over replicas. Errors: no replica, or a URL that is
// not an absolute http or https URL.
func NewRoundRobin(replicas []Endpoint) (*RoundRobin, error) {
	if len(replicas) == 0 {
		return nil, errors.New("cannot balance over no replicas")
	}
	r := &RoundRobin{replicas: append([]Endpoint(nil), replicas...)}
	for _, e := range replicas {
		u, err := url.Parse(e.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("cannot balance over replica %q: not an http or https URL", e.URL)
		}
		r.urls = append(r.urls, u)
	}
	return r, nil
}

// Replicas returns the replicas in round-robin order.
func (r *RoundRobin) Replicas() []Endpoint { return append([]Endpoint(nil), r.replicas...) }

// pick returns the index of the replica that gets the next request.
func (r *RoundRobin) pick() int {
	return int((r.sent.Add(1) - 1) % uint64(len(r.replicas)))
}

// Transport returns the http.RoundTripper of one client: a connection of its own to each
// replica, with that replica's TLS configuration (HTTP/2 where it offers it, as
// NewAPIClient's), and each request sent to the replica the round robin picks, its URL's
// scheme and host replaced by the replica's. Its CloseIdleConnections closes every replica's
// idle connection.
func (r *RoundRobin) Transport() http.RoundTripper {
	t := &roundRobinTransport{rr: r}
	for _, e := range r.replicas {
		t.transports = append(t.transports, newTransport(e.TLS))
	}
	return t
}

// roundRobinTransport is RoundRobin.Transport's.
type roundRobinTransport struct {
	rr         *RoundRobin
	transports []*http.Transport
}

// RoundTrip implements http.RoundTripper.
func (t *roundRobinTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	k := t.rr.pick()
	target := t.rr.urls[k]
	// A shallow copy with a URL of its own: a RoundTripper must not modify its request.
	out := new(http.Request)
	*out = *req
	u := *req.URL
	u.Scheme, u.Host = target.Scheme, target.Host
	out.URL, out.Host = &u, ""
	return t.transports[k].RoundTrip(out)
}

// CloseIdleConnections closes the idle connections to every replica.
func (t *roundRobinTransport) CloseIdleConnections() {
	for _, tr := range t.transports {
		tr.CloseIdleConnections()
	}
}

// NewBalancedAPIClient returns a client, as NewAPIClient's, whose requests go through rr: it
// holds a connection to each replica and sends each request to the replica rr picks.
func NewBalancedAPIClient(rr *RoundRobin, tmpl *ObjectTemplate) *APIClient {
	return newAPIClient(rr.replicas[0].URL, tmpl, rr.Transport())
}

// http.Client.CloseIdleConnections (APIClient.Close) reaches a transport through this.
var _ interface{ CloseIdleConnections() } = (*roundRobinTransport)(nil)

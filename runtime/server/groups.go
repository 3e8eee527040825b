package server

import (
	"errors"
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// APIGroups returns the groups the server itself serves or proxies (not its delegates'), in
// the order they were added, then the groups of its ProxyHandler (see SetProxyHandler) that
// it does not serve itself.
func (s *Server) APIGroups() []metav1.APIGroup {
	groups := s.rootAPIs.Groups()
	if p := s.proxyHandler(); p != nil {
		seen := map[string]bool{}
		for _, g := range groups {
			seen[g.Name] = true
		}
		for _, g := range p.APIGroups() {
			if !seen[g.Name] {
				seen[g.Name] = true
				groups = append(groups, g)
			}
		}
	}
	return groups
}

// APIGroupInfos returns the groups installed in the server itself (InstallAPIGroups; not its
// delegates' nor the ones it proxies), in the order they were installed: what an in-process
// controller, such as the garbage collector, reads the server's resources from.
func (s *Server) APIGroupInfos() []*registry.APIGroupInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.groups)
}

// ProxyHandler serves the groups a server proxies to other servers, a set that changes while
// the server runs, as kube-aggregator's APIService-driven proxy handlers.
type ProxyHandler interface {
	// ServeHTTP serves every request under /apis/ that no group of the server itself serves:
	// those of its proxied groups, and it hands every other one to the server's delegate.
	http.Handler
	// APIGroups returns the discovery documents of the groups proxied right now, listed in
	// /apis after the server's own.
	APIGroups() []metav1.APIGroup
}

// SetProxyHandler sends every request under /apis/<group> of a group the server does not serve
// itself to h, and lists h's groups in /apis, as kube-apiserver's aggregator does for the
// groups of its APIServices; h passes what it does not proxy on to NextDelegate's
// UnprotectedHandler. It fails after PrepareRun and when a handler is already set.
func (s *Server) SetProxyHandler(h ProxyHandler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prepared {
		return errors.New("cannot set the proxy handler: the server is already prepared")
	}
	if s.proxy != nil {
		return errors.New("cannot set the proxy handler: one is already set")
	}
	s.proxy = h
	s.mux.Handle("/apis/", h)
	return nil
}

// proxyHandler returns the ProxyHandler set with SetProxyHandler, or nil.
func (s *Server) proxyHandler() ProxyHandler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proxy
}

// groupLister is a link of the chain that lists its groups in /apis.
type groupLister interface {
	APIGroups() []metav1.APIGroup
}

// chainGroups lists the groups of s and of every delegate that lists its own, s's first; a
// group name seen earlier in the chain hides a later one, as the earlier link serves it.
func (s *Server) chainGroups() []metav1.APIGroup {
	var out []metav1.APIGroup
	seen := map[string]bool{}
	var link DelegationTarget = s
	for link != nil {
		if gl, ok := link.(groupLister); ok {
			for _, g := range gl.APIGroups() {
				if !seen[g.Name] {
					seen[g.Name] = true
					out = append(out, g)
				}
			}
		}
		link = link.NextDelegate()
	}
	return out
}

// serveRootAPIs writes /apis: the APIGroupList of the whole chain, as kube-apiserver's
// aggregator merges its delegates' discovery.
func (s *Server) serveRootAPIs(w http.ResponseWriter, _ *http.Request) {
	responsewriters.WriteJSON(w, http.StatusOK, &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   s.chainGroups(),
	})
}

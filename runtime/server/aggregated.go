package server

import (
	"net/http"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/discovery"
)

// AggregatedDiscoverer is a link of the chain, or a ProxyHandler, that describes the groups
// it serves in aggregated discovery (apidiscovery.k8s.io/v2), as kube-apiserver's links
// publish theirs to its aggregated discovery manager.
type AggregatedDiscoverer interface {
	// AggregatedGroups returns an entry per group the link serves, the core group ("")
	// included when it serves it, each with its versions most preferred first.
	AggregatedGroups() []apidiscoveryv2.APIGroupDiscovery
}

// AggregatedGroups returns the aggregated discovery entries of the groups the server itself
// serves, the core group included, in the order they were installed; every version is
// Current.
func (s *Server) AggregatedGroups() []apidiscoveryv2.APIGroupDiscovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]apidiscoveryv2.APIGroupDiscovery, 0, len(s.groups))
	for _, info := range s.groups {
		out = append(out, discovery.GroupDiscovery(info.Group, s.resourceLists[info.Group], apidiscoveryv2.DiscoveryFreshnessCurrent))
	}
	return out
}

// chainAggregated returns the aggregated discovery entries of the whole chain: for /api
// (core) the core group's, else every other group's in the order /apis lists them, each with
// the versions /apis lists for it. A version several links describe is the first one's (a
// proxied version of the aggregator hides the chain's own copy), as the first link serves it;
// a version no link describes is listed Stale, without resources.
func (s *Server) chainAggregated(core bool) []apidiscoveryv2.APIGroupDiscovery {
	byGroup := map[string]map[string]apidiscoveryv2.APIVersionDiscovery{}
	add := func(d AggregatedDiscoverer) {
		for _, g := range d.AggregatedGroups() {
			if byGroup[g.Name] == nil {
				byGroup[g.Name] = map[string]apidiscoveryv2.APIVersionDiscovery{}
			}
			for _, v := range g.Versions {
				if _, seen := byGroup[g.Name][v.Version]; !seen {
					byGroup[g.Name][v.Version] = v
				}
			}
		}
	}
	for link := DelegationTarget(s); link != nil; link = link.NextDelegate() {
		if d, ok := link.(AggregatedDiscoverer); ok {
			add(d)
		}
		if srv, ok := link.(*Server); ok {
			if d, ok := srv.proxyHandler().(AggregatedDiscoverer); ok {
				add(d)
			}
		}
	}
	entry := func(name string, versions []string) apidiscoveryv2.APIGroupDiscovery {
		d := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, v := range versions {
			vd, ok := byGroup[name][v]
			if !ok {
				vd = apidiscoveryv2.APIVersionDiscovery{Version: v, Resources: []apidiscoveryv2.APIResourceDiscovery{},
					Freshness: apidiscoveryv2.DiscoveryFreshnessStale}
			}
			d.Versions = append(d.Versions, vd)
		}
		return d
	}
	if core {
		if versions := s.chainCoreVersions(); len(versions) > 0 {
			return []apidiscoveryv2.APIGroupDiscovery{entry("", versions)}
		}
		return nil
	}
	var out []apidiscoveryv2.APIGroupDiscovery
	for _, g := range s.chainGroups() {
		versions := make([]string, len(g.Versions))
		for i, v := range g.Versions {
			versions[i] = v.Version
		}
		out = append(out, entry(g.Name, versions))
	}
	return out
}

// withAggregated serves the aggregated discovery document of /api (core) or /apis when the
// request asks for it (discovery.NegotiateAggregated), and legacy otherwise, as
// kube-apiserver's aggregated discovery wrapper.
func (s *Server) withAggregated(legacy http.Handler, core bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if version, ok := discovery.NegotiateAggregated(r); ok {
			discovery.ServeAggregated(w, r, version, s.chainAggregated(core))
			return
		}
		legacy.ServeHTTP(w, r)
	})
}

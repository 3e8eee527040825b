package aggregator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/discovery"
)

// maxDiscoveryBytes bounds a backend's discovery or OpenAPI response.
const maxDiscoveryBytes = 16 << 20

// discoveryCache holds what the last discovery check of each proxied group version found,
// for aggregated discovery, as kube-aggregator's discovery manager caches its backends'
// documents. Safe for concurrent use.
type discoveryCache struct {
	mu    sync.Mutex
	byGV  map[schema.GroupVersion]*metav1.APIResourceList
	stale map[schema.GroupVersion]bool
}

// record stores the APIResourceList a check of gv read; nil marks gv's last list Stale.
func (c *discoveryCache) record(gv schema.GroupVersion, list *metav1.APIResourceList) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byGV == nil {
		c.byGV, c.stale = map[schema.GroupVersion]*metav1.APIResourceList{}, map[schema.GroupVersion]bool{}
	}
	if list == nil {
		c.stale[gv] = true
		return
	}
	c.byGV[gv], c.stale[gv] = list, false
}

// version returns gv's aggregated discovery entry: its last list's resources, Current when
// the last check read it, Stale (and no resources before any check succeeded) otherwise.
func (c *discoveryCache) version(gv schema.GroupVersion) apidiscoveryv2.APIVersionDiscovery {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Resources: []apidiscoveryv2.APIResourceDiscovery{},
		Freshness: apidiscoveryv2.DiscoveryFreshnessStale}
	if list := c.byGV[gv]; list != nil {
		v.Resources = discovery.ResourcesDiscovery(gv.String(), list.APIResources)
		if !c.stale[gv] {
			v.Freshness = apidiscoveryv2.DiscoveryFreshnessCurrent
		}
	}
	return v
}

// AggregatedGroups returns the aggregated discovery entries of the proxied group versions,
// from the lists the availability checks read from the backends (Current when the last check
// of a version succeeded, else Stale), as kube-aggregator merges its backends' documents
// (server.AggregatedDiscoverer); the Local versions of a group are the chain's to describe.
func (a *Aggregator) AggregatedGroups() []apidiscoveryv2.APIGroupDiscovery {
	snap := a.state.Load()
	out := make([]apidiscoveryv2.APIGroupDiscovery, 0, len(snap.groups))
	for _, g := range snap.groups {
		d := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, v := range g.Versions {
			if e := snap.byGV[gvOf(g.Name, v.Version)]; e != nil && !e.local() {
				d.Versions = append(d.Versions, a.discovered.version(gvOf(g.Name, v.Version)))
			}
		}
		out = append(out, d)
	}
	return out
}

// readResourceList decodes a backend's APIResourceList response.
func readResourceList(resp *http.Response) (*metav1.APIResourceList, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBytes))
	if err != nil {
		return nil, err
	}
	list := &metav1.APIResourceList{}
	if err := json.Unmarshal(data, list); err != nil {
		return nil, fmt.Errorf("cannot decode the APIResourceList: %w", err)
	}
	return list, nil
}

package garbagecollector

import (
	"maps"
	"testing"

	"github.com/apigen-dev/apigen/runtime/rest"
)

// TestAPIGroupResourcesIgnoresEvents checks that Events, in the core group and in
// events.k8s.io, are never watched, as kube-controller-manager's DefaultIgnoredResources,
// while a group's other resources are.
func TestAPIGroupResourcesIgnoresEvents(t *testing.T) {
	_, _, info := newTestGroup(t)
	v := info.PrioritizedVersions[0].Version
	widgets := info.VersionedResourcesStorageMap[v]["widgets"]
	for _, group := range []string{"", "events.k8s.io"} {
		g := *info
		g.Group = group
		g.VersionedResourcesStorageMap = map[string]map[string]rest.Storage{v: maps.Clone(info.VersionedResourcesStorageMap[v])}
		g.VersionedResourcesStorageMap[v]["events"] = widgets
		var names []string
		for _, r := range APIGroupResources(&g) {
			names = append(names, r.Resource)
			if r.Resource == "events" {
				t.Errorf("group %q: events are watched", group)
			}
		}
		if len(names) == 0 {
			t.Errorf("group %q: no resource watched", group)
		}
	}
}

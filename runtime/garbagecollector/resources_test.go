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

// TestAPIGroupResourcesFollowsVerbs checks that a resource whose group does not serve delete,
// list or watch on it (APIGroupInfo.Verbs, as a read-only computed resource's) is not
// watched, as kube's GetDeletableResources reads discovery's verbs, while the same storage
// serving every verb is.
func TestAPIGroupResourcesFollowsVerbs(t *testing.T) {
	_, _, info := newTestGroup(t)
	watched := func(verbs []string) bool {
		g := *info
		g.Verbs = map[string]map[string][]string{}
		for _, gv := range info.PrioritizedVersions {
			g.Verbs[gv.Version] = map[string][]string{"widgets": verbs}
		}
		for _, r := range APIGroupResources(&g) {
			if r.Resource == "widgets" {
				return true
			}
		}
		return false
	}
	if !watched([]string{"get", "list", "watch", "delete"}) {
		t.Error("widgets serving delete, list and watch are not watched")
	}
	for _, verbs := range [][]string{{"get", "list", "watch"}, {"get", "list", "delete"}, {"get", "watch", "delete"}} {
		if watched(verbs) {
			t.Errorf("widgets serving only %v are watched", verbs)
		}
	}
}

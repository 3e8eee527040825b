package discovery

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNegotiateAggregated(t *testing.T) {
	for _, c := range []struct {
		accept  string
		version string
		ok      bool
	}{
		{"", "", false},
		{"application/json", "", false},
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", "v2", true},
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", "v2beta1", true},
		// client-go's order: nopeer profile first, then v2, then legacy.
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", "v2", true},
		// Protobuf is skipped; a lower quality loses.
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "v2", true},
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json", "", false},
		{"application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,*/*", "", false},
	} {
		r := httptest.NewRequest("GET", "/apis", nil)
		r.Header.Set("Accept", c.accept)
		if v, ok := NegotiateAggregated(r); v != c.version || ok != c.ok {
			t.Errorf("NegotiateAggregated(%q) = %q, %t, want %q, %t", c.accept, v, ok, c.version, c.ok)
		}
	}
}

func TestGroupDiscovery(t *testing.T) {
	list := &metav1.APIResourceList{GroupVersion: "db.example.com/v1", APIResources: []metav1.APIResource{
		{Name: "databases", SingularName: "database", Namespaced: true, Kind: "Database", Verbs: []string{"get", "list"},
			ShortNames: []string{"db"}, Categories: []string{"all"}},
		{Name: "databases/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}},
		{Name: "databases/status", Namespaced: true, Kind: "Database", Verbs: []string{"get"}},
		{Name: "orphans/status", Kind: "Orphan", Verbs: []string{"get"}},
	}}
	got := GroupDiscovery("db.example.com", []*metav1.APIResourceList{list}, apidiscoveryv2.DiscoveryFreshnessCurrent)
	gvk := func(g, v, k string) *metav1.GroupVersionKind {
		return &metav1.GroupVersionKind{Group: g, Version: v, Kind: k}
	}
	want := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: "db.example.com"}, Versions: []apidiscoveryv2.APIVersionDiscovery{{
		Version: "v1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		Resources: []apidiscoveryv2.APIResourceDiscovery{
			{Resource: "databases", SingularResource: "database", Scope: apidiscoveryv2.ScopeNamespace,
				ResponseKind: gvk("db.example.com", "v1", "Database"), Verbs: []string{"get", "list"},
				ShortNames: []string{"db"}, Categories: []string{"all"},
				Subresources: []apidiscoveryv2.APISubresourceDiscovery{
					{Subresource: "scale", ResponseKind: gvk("autoscaling", "v1", "Scale"), Verbs: []string{"get", "patch", "update"}},
					{Subresource: "status", ResponseKind: gvk("db.example.com", "v1", "Database"), Verbs: []string{"get"}},
				}},
			{Resource: "orphans", Scope: apidiscoveryv2.ScopeCluster, ResponseKind: &metav1.GroupVersionKind{},
				Subresources: []apidiscoveryv2.APISubresourceDiscovery{
					{Subresource: "status", ResponseKind: gvk("db.example.com", "v1", "Orphan"), Verbs: []string{"get"}}}},
		},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GroupDiscovery (-want +got):\n%s", diff)
	}
}

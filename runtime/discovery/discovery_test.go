package discovery

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func fetch(t *testing.T, url string, into any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != ContentType {
		t.Fatalf("GET %s: %d %s %q", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestDiscoveryDocuments(t *testing.T) {
	v1 := schema.GroupVersion{Group: "db.example.com", Version: "v1"}
	v1alpha1 := schema.GroupVersion{Group: "db.example.com", Version: "v1alpha1"}
	group := NewAPIGroup("db.example.com", []schema.GroupVersion{v1, v1alpha1})
	roots := &RootAPIs{}
	roots.AddGroup(group)
	roots.AddGroup(NewAPIGroup("other.example.com", []schema.GroupVersion{{Group: "other.example.com", Version: "v2"}}))
	roots.AddGroup(group) // replaces, keeps the order

	container := restful.NewContainer()
	container.Add(NewGroupWebService(group))
	existing := new(restful.WebService).Path("/apis/db.example.com/v1")
	existing.Route(existing.GET("/databases").To(func(*restful.Request, *restful.Response) {}))
	container.Add(existing)
	InstallResourceList(container, &metav1.APIResourceList{GroupVersion: "db.example.com/v1",
		APIResources: []metav1.APIResource{{Name: "databases", Kind: "Database", Namespaced: true, Verbs: metav1.Verbs{"get"}}}})
	InstallResourceList(container, &metav1.APIResourceList{GroupVersion: "db.example.com/v1alpha1"})

	mux := http.NewServeMux()
	mux.Handle("/api", APIVersionsHandler())
	mux.Handle("/apis", roots)
	mux.Handle("/apis/", container)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	var versions metav1.APIVersions
	fetch(t, srv.URL+"/api", &versions)
	if diff := cmp.Diff(metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions", APIVersion: "v1"},
		Versions: []string{}, ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{}}, versions); diff != "" {
		t.Errorf("/api (-want +got):\n%s", diff)
	}
	var list metav1.APIGroupList
	fetch(t, srv.URL+"/apis", &list)
	if list.Kind != "APIGroupList" || len(list.Groups) != 2 || list.Groups[0].Name != "db.example.com" {
		t.Errorf("/apis = %+v", list)
	}
	var got metav1.APIGroup
	fetch(t, srv.URL+"/apis/db.example.com", &got)
	want := metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     "db.example.com",
		Versions: []metav1.GroupVersionForDiscovery{
			{GroupVersion: "db.example.com/v1", Version: "v1"}, {GroupVersion: "db.example.com/v1alpha1", Version: "v1alpha1"}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "db.example.com/v1", Version: "v1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/apis/db.example.com (-want +got):\n%s", diff)
	}
	var resources metav1.APIResourceList
	fetch(t, srv.URL+"/apis/db.example.com/v1", &resources)
	if resources.Kind != "APIResourceList" || resources.APIVersion != "v1" || len(resources.APIResources) != 1 {
		t.Errorf("/apis/db.example.com/v1 = %+v", resources)
	}
	fetch(t, srv.URL+"/apis/db.example.com/v1alpha1", &resources)
	if resources.GroupVersion != "db.example.com/v1alpha1" || resources.APIResources == nil || len(resources.APIResources) != 0 {
		t.Errorf("/apis/db.example.com/v1alpha1 = %+v, want an empty resource list", resources)
	}
}

// TestCoreGroupDiscovery serves the core group as kube-apiserver does: /api lists "v1" and
// /api/v1 its resources.
func TestCoreGroupDiscovery(t *testing.T) {
	if got := ResourceListPath("v1"); got != "/api/v1" {
		t.Errorf("ResourceListPath(v1) = %q", got)
	}
	if got := ResourceListPath("db.example.com/v1"); got != "/apis/db.example.com/v1" {
		t.Errorf("ResourceListPath(db.example.com/v1) = %q", got)
	}
	container := restful.NewContainer()
	InstallResourceList(container, &metav1.APIResourceList{GroupVersion: "v1",
		APIResources: []metav1.APIResource{{Name: "namespaces", ShortNames: []string{"ns"}, Kind: "Namespace", Verbs: metav1.Verbs{"get"}}}})
	mux := http.NewServeMux()
	mux.Handle("/api", NewAPIVersions(func() []string { return []string{"v1"} }))
	mux.Handle("/api/", container)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	var versions metav1.APIVersions
	fetch(t, srv.URL+"/api", &versions)
	if diff := cmp.Diff([]string{"v1"}, versions.Versions); versions.Kind != "APIVersions" || diff != "" {
		t.Errorf("/api = %+v (-want +got versions):\n%s", versions, diff)
	}
	var resources metav1.APIResourceList
	fetch(t, srv.URL+"/api/v1", &resources)
	if resources.GroupVersion != "v1" || len(resources.APIResources) != 1 || resources.APIResources[0].Name != "namespaces" {
		t.Errorf("/api/v1 = %+v", resources)
	}
}

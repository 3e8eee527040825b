package server

import (
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// coreInstaller stands in for endpoints.InstallAPIGroup for the core group: /api/v1 with a
// namespaces list route.
func coreInstaller(container *restful.Container, _ *registry.APIGroupInfo) ([]*metav1.APIResourceList, error) {
	ws := new(restful.WebService).Path("/api/v1").Produces("application/json")
	ws.Route(ws.GET("/namespaces").To(func(_ *restful.Request, resp *restful.Response) {
		_ = resp.WriteAsJson(&metav1.List{})
	}))
	container.Add(ws)
	return []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "namespaces", Kind: "Namespace", Verbs: metav1.Verbs{"list"}}}}}, nil
}

// TestCoreGroup serves the core group ("") as kube-apiserver: /api lists v1 (also through a
// server that delegates to the one serving it), /api/v1 lists its resources, /apis does not
// list it.
func TestCoreGroup(t *testing.T) {
	typed := New(Config{Name: "typed", InstallAPIGroup: coreInstaller}, nil)
	core := &registry.APIGroupInfo{Group: "", PrioritizedVersions: []schema.GroupVersion{{Version: "v1"}}, Scheme: testapi.NewScheme()}
	if err := typed.InstallAPIGroups(core); err != nil {
		t.Fatal(err)
	}
	top := New(Config{Name: "top", InstallAPIGroup: fakeInstaller}, typed)
	if err := top.InstallAPIGroups(fakeGroup()); err != nil {
		t.Fatal(err)
	}
	base, _ := serve(t, top)

	var versions metav1.APIVersions
	decode(t, base, "/api", &versions)
	if len(versions.Versions) != 1 || versions.Versions[0] != "v1" {
		t.Errorf("/api = %+v, want versions [v1]", versions)
	}
	var resources metav1.APIResourceList
	decode(t, base, "/api/v1", &resources)
	if resources.GroupVersion != "v1" || len(resources.APIResources) != 1 || resources.APIResources[0].Name != "namespaces" {
		t.Errorf("/api/v1 = %+v", resources)
	}
	var groups metav1.APIGroupList
	decode(t, base, "/apis", &groups)
	if len(groups.Groups) != 1 || groups.Groups[0].Name != "test.apigen.dev" {
		t.Errorf("/apis = %+v, want only test.apigen.dev", groups)
	}
	if code, _, _ := get(t, base+"/apis/v1"); code != 404 {
		t.Errorf("/apis/v1: %d, want 404", code)
	}
}

package endpoints_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// newLimitedServer serves the test group over real HTTP on 127.0.0.1, backed by a real etcd,
// with its APIGroupInfo changed by edit (nil: as the test group declares it).
func newLimitedServer(t *testing.T, edit func(*registry.APIGroupInfo)) *testServer {
	t.Helper()
	client, _ := etcdtest.Run(t)
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	stores, err := install.NewStores(scheme, &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	info := install.NewAPIGroupInfo(scheme, stores)
	if edit != nil {
		edit(info)
	}
	container := restful.NewContainer()
	container.Router(endpoints.NewRouter()) // as runtime/server's containers
	container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	lists, err := endpoints.InstallAPIGroup(container, info)
	if err != nil {
		t.Fatalf("InstallAPIGroup: %v", err)
	}
	ts := httptest.NewServer(container)
	t.Cleanup(ts.Close)
	return &testServer{url: ts.URL, discovery: lists}
}

// discoveryVerbs returns the verbs discovery lists for path in version (index into lists).
func discoveryVerbs(lists []*metav1.APIResourceList, version int, path string) []string {
	for _, r := range lists[version].APIResources {
		if r.Name == path {
			return r.Verbs
		}
	}
	return nil
}

// TestVerbsLimitRoutesAndDiscovery limits v1 widgets to the read-only verbs and v1
// widgets/status to get, as +genclient:readonly does: discovery lists only those, reads work,
// and every write answers 405 MethodNotAllowed, while v1beta1, without limits, still serves
// every verb on the same storage.
func TestVerbsLimitRoutesAndDiscovery(t *testing.T) {
	s := newLimitedServer(t, func(info *registry.APIGroupInfo) {
		info.Verbs = map[string]map[string][]string{"v1": {"widgets": {"get", "list", "watch"}, "widgets/status": {"get"}}}
	})
	if got := discoveryVerbs(s.discovery, 0, "widgets"); !slices.Equal(got, []string{"get", "list", "watch"}) {
		t.Errorf("v1 widgets verbs = %v, want [get list watch]", got)
	}
	if got := discoveryVerbs(s.discovery, 0, "widgets/status"); !slices.Equal(got, []string{"get"}) {
		t.Errorf("v1 widgets/status verbs = %v, want [get]", got)
	}
	if got := discoveryVerbs(s.discovery, 1, "widgets"); len(got) != 8 {
		t.Errorf("v1beta1 widgets verbs = %v, want all 8", got)
	}
	beta := "/apis/test.apigen.dev/v1beta1/namespaces/ns/widgets"
	s.expect(t, request{method: http.MethodPost, path: beta, body: `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}}`},
		http.StatusCreated, nil)
	s.expect(t, request{method: http.MethodGet, path: widgets + "/w"}, http.StatusOK, nil)
	s.expect(t, request{method: http.MethodGet, path: widgets}, http.StatusOK, nil)
	s.expect(t, request{method: http.MethodGet, path: widgets + "/w/status"}, http.StatusOK, nil)
	for _, r := range []request{
		{method: http.MethodPost, path: widgets, body: widgetJSON("x", 1, "red")},
		{method: http.MethodPut, path: widgets + "/w", body: widgetJSON("w", 2, "red")},
		{method: http.MethodPatch, path: widgets + "/w", contentType: "application/merge-patch+json", body: `{"spec":{"size":3}}`},
		{method: http.MethodDelete, path: widgets + "/w"},
		{method: http.MethodDelete, path: widgets},
		{method: http.MethodPut, path: widgets + "/w/status", body: widgetJSON("w", 2, "red")},
	} {
		s.expectStatus(t, r, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "")
	}
	s.expect(t, request{method: http.MethodGet, path: beta + "/w"}, http.StatusOK, nil)
	s.expect(t, request{method: http.MethodDelete, path: beta + "/w"}, http.StatusOK, nil)
}

// TestDeprecationWarning marks v1beta1 widgets deprecated: every response for them, their
// status and their collection carries kube's Warning: 299 header with the text; v1 and the
// gadgets of v1beta1 carry none.
func TestDeprecationWarning(t *testing.T) {
	const text = "test.apigen.dev/v1beta1 Widget is deprecated; use test.apigen.dev/v1 Widget"
	s := newLimitedServer(t, func(info *registry.APIGroupInfo) {
		info.DeprecationWarnings = map[string]map[string]string{"v1beta1": {"widgets": text}}
	})
	beta := "/apis/test.apigen.dev/v1beta1/namespaces/ns/widgets"
	want := `299 - "` + text + `"`
	for _, r := range []request{
		{method: http.MethodPost, path: beta, body: `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}}`},
		{method: http.MethodGet, path: beta + "/w"},
		{method: http.MethodGet, path: beta + "/w/status"},
		{method: http.MethodGet, path: beta},
		{method: http.MethodGet, path: beta + "/absent"},
	} {
		resp, body := s.do(t, r)
		if got := resp.Header.Values("Warning"); len(got) != 1 || got[0] != want {
			t.Errorf("%s %s (%d %s): Warning = %q, want [%q]", r.method, r.path, resp.StatusCode, body, got, want)
		}
	}
	for _, path := range []string{widgets + "/w", "/apis/test.apigen.dev/v1beta1/namespaces/ns/gadgets"} {
		resp, _ := s.do(t, request{method: http.MethodGet, path: path})
		if got := resp.Header.Values("Warning"); len(got) != 0 {
			t.Errorf("GET %s: Warning = %q, want none", path, got)
		}
	}
}

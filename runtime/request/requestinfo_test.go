package request

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRequestInfo(t *testing.T) {
	const dbs = "/apis/db.example.com/v1/namespaces/team-a/databases"
	res := func(verb, ns, resource, name, sub string) RequestInfo {
		return RequestInfo{IsResourceRequest: true, Verb: verb, APIPrefix: "apis", APIGroup: "db.example.com",
			APIVersion: "v1", Namespace: ns, Resource: resource, Name: name, Subresource: sub}
	}
	core := func(verb, ns, resource, name, sub string) RequestInfo {
		return RequestInfo{IsResourceRequest: true, Verb: verb, APIPrefix: "api", APIVersion: "v1",
			Namespace: ns, Resource: resource, Name: name, Subresource: sub}
	}
	for _, tc := range []struct {
		method, url string
		want        RequestInfo
	}{
		{"GET", dbs + "/main", res("get", "team-a", "databases", "main", "")},
		{"HEAD", dbs + "/main", res("get", "team-a", "databases", "main", "")},
		{"GET", dbs, res("list", "team-a", "databases", "", "")},
		{"GET", dbs + "?watch=true", res("watch", "team-a", "databases", "", "")},
		{"GET", dbs + "?watch=1&resourceVersion=5", res("watch", "team-a", "databases", "", "")},
		{"GET", dbs + "?watch=false", res("list", "team-a", "databases", "", "")},
		{"GET", dbs + "?fieldSelector=metadata.name%3Dmain", res("list", "team-a", "databases", "main", "")},
		{"GET", dbs + "?watch=true&fieldSelector=metadata.name%3Dmain", res("watch", "team-a", "databases", "main", "")},
		{"GET", dbs + "?fieldSelector=metadata.name%3Da%252Fb", res("list", "team-a", "databases", "", "")},
		{"GET", dbs + "?fieldSelector=metadata.name!%3Dmain", res("list", "team-a", "databases", "", "")},
		{"GET", "/apis/db.example.com/v1/watch/namespaces/team-a/databases/main", res("watch", "team-a", "databases", "main", "")},
		{"POST", dbs, res("create", "team-a", "databases", "", "")},
		{"PUT", dbs + "/main/status", res("update", "team-a", "databases", "main", "status")},
		{"PATCH", dbs + "/main/scale", res("patch", "team-a", "databases", "main", "scale")},
		{"DELETE", dbs + "/main", res("delete", "team-a", "databases", "main", "")},
		{"DELETE", dbs, res("deletecollection", "team-a", "databases", "", "")},
		{"GET", "/apis/db.example.com/v1/databases", res("list", "", "databases", "", "")},
		{"GET", "/apis/db.example.com/v1/backups/nightly", res("get", "", "backups", "nightly", "")},
		{"GET", "/api/v1/namespaces", core("list", "", "namespaces", "", "")},
		{"GET", "/api/v1/namespaces/team-a", core("get", "team-a", "namespaces", "team-a", "")},
		{"PUT", "/api/v1/namespaces/team-a/finalize", core("update", "team-a", "namespaces", "team-a", "finalize")},
		{"DELETE", "/api/v1/namespaces/team-a", core("delete", "team-a", "namespaces", "team-a", "")},
		{"GET", "/api/v1/namespaces/team-a/configmaps", core("list", "team-a", "configmaps", "", "")},
		{"GET", "/healthz", RequestInfo{Verb: "get"}},
		{"POST", "/openapi/v3", RequestInfo{Verb: "post"}},
		{"GET", "/apis", RequestInfo{Verb: "get"}},
		{"GET", "/apis/db.example.com", RequestInfo{Verb: "get", APIPrefix: "apis"}},
		{"GET", "/apis/db.example.com/v1", RequestInfo{Verb: "get", APIPrefix: "apis", APIGroup: "db.example.com", APIVersion: "v1"}},
		{"GET", "/api/v1", RequestInfo{Verb: "get", APIPrefix: "api", APIVersion: "v1"}},
	} {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.url, nil)
			got, err := ParseRequestInfo(r)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Path = r.URL.Path
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRequestInfoRejectsDotSegments(t *testing.T) {
	for _, path := range []string{"/apis/db.example.com/v1/namespaces/../databases", "/api/v1/namespaces/./x", "/apis/g/v1/namespaces/a/databases/..", "/apis/g/v1/namespaces//databases"} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.Path = path
		if _, err := ParseRequestInfo(r); err == nil || !strings.Contains(err.Error(), "is not allowed") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// FuzzParseRequestInfo checks, for any method and URL, that ParseRequestInfo does not panic,
// that a resource request names a version and a known verb, and that no field it returns
// holds a "/" or is a dot segment (which would let an authorizer be asked about one thing
// while another is served).
func FuzzParseRequestInfo(f *testing.F) {
	for _, seed := range []string{
		"/apis/db.example.com/v1/namespaces/team-a/databases/main/status",
		"/api/v1/namespaces/team-a",
		"/apis/db.example.com/v1/watch/namespaces/x/databases?fieldSelector=metadata.name%3Dy",
		"/apis/g/v1/namespaces/a/databases?watch=1",
		"/apis//v1//databases",
		"/api/v1/namespaces/%2F/x",
		"/healthz",
	} {
		f.Add("GET", seed)
		f.Add("DELETE", seed)
	}
	known := map[string]bool{"get": true, "list": true, "watch": true, "create": true, "update": true, "patch": true,
		"delete": true, "deletecollection": true, "": true}
	f.Fuzz(func(t *testing.T, method, target string) {
		r, err := http.NewRequest(method, "http://127.0.0.1"+target, nil)
		if err != nil || r.URL == nil || r.URL.Host != "127.0.0.1" {
			return
		}
		info, err := ParseRequestInfo(r)
		if err != nil {
			return
		}
		if info.IsResourceRequest {
			if info.APIVersion == "" || !known[info.Verb] {
				t.Errorf("%s %s: resource request %+v", method, target, info)
			}
		}
		for _, v := range []string{info.APIGroup, info.APIVersion, info.Namespace, info.Resource, info.Name, info.Subresource} {
			if strings.Contains(v, "/") || v == "." || v == ".." {
				t.Errorf("%s %s: field %q in %+v", method, target, v, info)
			}
		}
	})
}

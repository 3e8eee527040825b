package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// groupServer serves the fake group over real HTTP.
func groupServer(t *testing.T) string {
	t.Helper()
	s := New(Config{Name: "discovery", InstallAPIGroup: fakeInstaller}, nil)
	if err := s.InstallAPIGroups(fakeGroup()); err != nil {
		t.Fatal(err)
	}
	base, _ := serve(t, s)
	return base
}

func decode(t *testing.T, base, path string, into any, header ...string) http.Header {
	t.Helper()
	code, body, h := get(t, base+path, header...)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %q", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), into); err != nil {
		t.Fatalf("GET %s: %v in %q", path, err, body)
	}
	return h
}

func TestDiscovery(t *testing.T) {
	base := groupServer(t)
	var versions metav1.APIVersions
	decode(t, base, "/api", &versions)
	if versions.Kind != "APIVersions" || versions.Versions == nil || len(versions.Versions) != 0 {
		t.Errorf("/api = %+v, want kind APIVersions and no versions", versions)
	}
	// A client asking for plain JSON gets the legacy documents.
	var groups metav1.APIGroupList
	h := decode(t, base, "/apis", &groups, "Accept", "application/json, */*")
	if h.Get("Content-Type") != "application/json" {
		t.Errorf("/apis Content-Type = %q, want application/json", h.Get("Content-Type"))
	}
	if groups.Kind != "APIGroupList" || groups.APIVersion != "v1" || len(groups.Groups) != 1 ||
		groups.Groups[0].Name != "test.apigen.dev" || groups.Groups[0].PreferredVersion.GroupVersion != "test.apigen.dev/v1" {
		t.Errorf("/apis = %+v", groups)
	}
	var group metav1.APIGroup
	decode(t, base, "/apis/test.apigen.dev", &group)
	if group.Kind != "APIGroup" || group.Name != "test.apigen.dev" || len(group.Versions) != 1 || group.Versions[0].Version != "v1" {
		t.Errorf("/apis/test.apigen.dev = %+v", group)
	}
	var resources metav1.APIResourceList
	decode(t, base, "/apis/test.apigen.dev/v1", &resources)
	if resources.Kind != "APIResourceList" || resources.GroupVersion != "test.apigen.dev/v1" ||
		len(resources.APIResources) != 1 || resources.APIResources[0].Name != "widgets" {
		t.Errorf("/apis/test.apigen.dev/v1 = %+v", resources)
	}
	// kubectl and client-go ask for aggregated discovery first and get it, with an ETag.
	for _, version := range []string{"v2", "v2beta1"} {
		var agg apidiscoveryv2.APIGroupDiscoveryList
		accept := "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList,application/json;q=0.9"
		h = decode(t, base, "/apis", &agg, "Accept", accept)
		if want := "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList"; h.Get("Content-Type") != want {
			t.Errorf("/apis aggregated Content-Type = %q, want %q", h.Get("Content-Type"), want)
		}
		if agg.Kind != "APIGroupDiscoveryList" || agg.APIVersion != "apidiscovery.k8s.io/"+version || len(agg.Items) != 1 ||
			agg.Items[0].Name != "test.apigen.dev" || len(agg.Items[0].Versions) != 1 ||
			len(agg.Items[0].Versions[0].Resources) != 1 || agg.Items[0].Versions[0].Resources[0].Resource != "widgets" ||
			agg.Items[0].Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent {
			t.Errorf("/apis aggregated %s = %+v", version, agg)
		}
		if code, _, _ := get(t, base+"/apis", "Accept", accept, "If-None-Match", h.Get("ETag")); h.Get("ETag") == "" || code != http.StatusNotModified {
			t.Errorf("/apis with If-None-Match %s: %d, want 304", h.Get("ETag"), code)
		}
	}
	var index struct{ Paths []string }
	decode(t, base, "/", &index)
	if !strings.Contains(strings.Join(index.Paths, " "), "/apis/test.apigen.dev/v1") {
		t.Errorf("/ lists %v, want the group version", index.Paths)
	}
}

func TestOpenAPIV2(t *testing.T) {
	base := groupServer(t)
	var doc spec.Swagger
	h := decode(t, base, "/openapi/v2", &doc)
	if h.Get("ETag") == "" {
		t.Error("/openapi/v2 has no ETag")
	}
	widget, ok := doc.Definitions["dev.apigen.test.v1.Widget"]
	if !ok {
		t.Fatalf("definitions %v lack dev.apigen.test.v1.Widget", keys(doc.Definitions))
	}
	if _, ok := doc.Definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]; !ok {
		t.Errorf("definitions %v lack ObjectMeta", keys(doc.Definitions))
	}
	gvks, _ := widget.Extensions["x-kubernetes-group-version-kind"].([]any)
	if len(gvks) != 1 || gvks[0].(map[string]any)["kind"] != "Widget" {
		t.Errorf("Widget's group-version-kinds = %v", widget.Extensions)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/openapi/v2", nil)
	req.Header.Set("If-None-Match", h.Get("ETag"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation with the ETag: %d, want 304", resp.StatusCode)
	}
	code, body, h := get(t, base+"/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if code != http.StatusOK || len(body) == 0 || !strings.Contains(h.Get("Content-Type"), "protobuf") {
		t.Errorf("protobuf /openapi/v2: %d, %d bytes, %q", code, len(body), h.Get("Content-Type"))
	}
}

func TestOpenAPIV3FieldValidation(t *testing.T) {
	base := groupServer(t)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	decode(t, base, "/openapi/v3", &index)
	entry, ok := index.Paths["apis/test.apigen.dev/v1"]
	if !ok || !strings.HasPrefix(entry.ServerRelativeURL, "/openapi/v3/apis/test.apigen.dev/v1?hash=") {
		t.Fatalf("/openapi/v3 index = %+v", index)
	}
	var doc spec3.OpenAPI
	h := decode(t, base, entry.ServerRelativeURL, &doc)
	if !strings.Contains(h.Get("Cache-Control"), "immutable") {
		t.Errorf("hashed document Cache-Control = %q, want immutable", h.Get("Cache-Control"))
	}
	// As kubectl's --validate=strict does: find the kind's PATCH and its fieldValidation parameter.
	found := false
	for path, item := range doc.Paths.Paths {
		if item.Patch == nil || !hasGVK(item.Patch.Extensions, "Widget") {
			continue
		}
		for _, p := range append(item.Patch.Parameters, item.Parameters...) {
			if p.Name == "fieldValidation" {
				found = true
			}
		}
		if !found {
			t.Errorf("PATCH %s of Widget lacks fieldValidation", path)
		}
	}
	if !found {
		t.Error("no PATCH operation carries Widget's x-kubernetes-group-version-kind")
	}
	if _, ok := doc.Components.Schemas["dev.apigen.test.v1.Widget"]; !ok {
		t.Errorf("schemas lack dev.apigen.test.v1.Widget")
	}
}

func hasGVK(ext spec.Extensions, kind string) bool {
	gvk, ok := ext["x-kubernetes-group-version-kind"].(map[string]any)
	return ok && gvk["kind"] == kind
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

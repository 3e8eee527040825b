package openapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// serve GETs path from svc and returns the status, body and ETag.
func serve(t *testing.T, svc *Service, path string) (int, string, string) {
	t.Helper()
	mux := http.NewServeMux()
	svc.Install(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String(), rec.Header().Get("ETag")
}

func doc(title string) *spec3.OpenAPI {
	return &spec3.OpenAPI{Version: "3.0.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: title}}}
}

// TestServiceSources checks that a source's documents join and leave /openapi/v2 and
// /openapi/v3 with their ETags, and that a source's group version replaces the static one
// until the source drops it.
func TestServiceSources(t *testing.T) {
	static := &spec.Swagger{SwaggerProps: spec.SwaggerProps{Swagger: "2.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: "static", Version: "v"}},
		Paths: &spec.Paths{Paths: map[string]spec.PathItem{"/apis/a/v1": {}}}, Definitions: spec.Definitions{"a.A": {}}}}
	svc, err := NewService(&Documents{V2: static, V3: map[string]*spec3.OpenAPI{"apis/a/v1": doc("static a")}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, etag := serve(t, svc, PathV2)
	src := &Documents{
		V2: &spec.Swagger{SwaggerProps: spec.SwaggerProps{Paths: &spec.Paths{Paths: map[string]spec.PathItem{"/apis/b/v1": {}}},
			Definitions: spec.Definitions{"b.B": {}}}},
		V3: map[string]*spec3.OpenAPI{"apis/b/v1": doc("source b"), "apis/a/v1": doc("proxied a")},
	}
	svc.SetSource("src", src)
	code, body, etag2 := serve(t, svc, PathV2)
	if code != http.StatusOK || !strings.Contains(body, `"/apis/b/v1"`) || !strings.Contains(body, `"b.B"`) ||
		!strings.Contains(body, `"/apis/a/v1"`) || etag2 == etag {
		t.Errorf("/openapi/v2 with the source: %d, ETag %s (was %s): %s", code, etag2, etag, body)
	}
	if _, body, _ := serve(t, svc, PathV3+"/apis/b/v1"); !strings.Contains(body, "source b") {
		t.Errorf("apis/b/v1: %s", body)
	}
	if _, body, _ := serve(t, svc, PathV3+"/apis/a/v1"); !strings.Contains(body, "proxied a") {
		t.Errorf("apis/a/v1 while the source has it: %s", body)
	}
	svc.SetSource("src", nil)
	if _, body, etag3 := serve(t, svc, PathV2); strings.Contains(body, `"b.B"`) || etag3 != etag {
		t.Errorf("/openapi/v2 after the source left: ETag %s, want %s: %s", etag3, etag, body)
	}
	if _, body, _ := serve(t, svc, PathV3+"/apis/b/v1"); strings.Contains(body, "source b") {
		t.Errorf("apis/b/v1 after the source left: %s", body)
	}
	if _, index, _ := serve(t, svc, PathV3); strings.Contains(index, "apis/b/v1") || !strings.Contains(index, "apis/a/v1") {
		t.Errorf("/openapi/v3 after the source left: %s", index)
	}
	if _, body, _ := serve(t, svc, PathV3+"/apis/a/v1"); !strings.Contains(body, "static a") {
		t.Errorf("apis/a/v1 after the source left: %s", body)
	}
}

// TestLazyService checks that NewLazyService builds the static documents on the first
// request only, once, that a source set before then still replaces a static group version,
// and that a build error is every request's 500.
func TestLazyService(t *testing.T) {
	builds := 0
	svc := NewLazyService(func() (*Documents, error) {
		builds++
		return &Documents{V2: &spec.Swagger{SwaggerProps: spec.SwaggerProps{Swagger: "2.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: "t", Version: "v"}}, Paths: &spec.Paths{Paths: map[string]spec.PathItem{"/apis/a/v1": {}}}}},
			V3: map[string]*spec3.OpenAPI{"apis/a/v1": doc("static a"), "apis/c/v1": doc("static c")}}, nil
	})
	svc.SetSource("src", &Documents{V3: map[string]*spec3.OpenAPI{"apis/a/v1": doc("proxied a")}})
	if builds != 0 {
		t.Fatalf("built %d times before any request", builds)
	}
	if _, index, _ := serve(t, svc, PathV3); !strings.Contains(index, "apis/a/v1") || !strings.Contains(index, "apis/c/v1") {
		t.Errorf("/openapi/v3: %s", index)
	}
	if _, body, _ := serve(t, svc, PathV3+"/apis/a/v1"); !strings.Contains(body, "proxied a") {
		t.Errorf("apis/a/v1 while the source has it: %s", body)
	}
	if code, body, _ := serve(t, svc, PathV2); code != http.StatusOK || !strings.Contains(body, `"/apis/a/v1"`) {
		t.Errorf("/openapi/v2: %d %s", code, body)
	}
	svc.SetSource("src", nil)
	if _, body, _ := serve(t, svc, PathV3+"/apis/a/v1"); !strings.Contains(body, "static a") {
		t.Errorf("apis/a/v1 after the source left: %s", body)
	}
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}

	failing := NewLazyService(func() (*Documents, error) { return nil, errors.New("no definition for a.A") })
	for _, path := range []string{PathV2, PathV3, PathV3 + "/apis/a/v1"} {
		if code, body, _ := serve(t, failing, path); code != http.StatusInternalServerError || !strings.Contains(body, "no definition for a.A") {
			t.Errorf("%s with a failing build: %d %s, want 500 with the error", path, code, body)
		}
	}
}

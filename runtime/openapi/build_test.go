package openapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

const widgetName = "github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.Widget"

func widgetDefinitions(common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	return map[string]common.OpenAPIDefinition{widgetName: {Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}}}
}

func widgetWebServices() []*restful.WebService {
	ws := new(restful.WebService).Path("/apis/test.apigen.dev/v1")
	ws.Route(ws.GET("/widgets/{name}").To(func(*restful.Request, *restful.Response) {}).
		Operation("readWidget").Writes(testapi.Widget{}).Param(ws.PathParameter("name", "name")))
	other := new(restful.WebService).Path("/apis/test.apigen.dev")
	other.Route(other.GET("/").To(func(*restful.Request, *restful.Response) {}).Operation("getAPIGroup"))
	return []*restful.WebService{ws, other}
}

func TestBuild(t *testing.T) {
	if _, err := Build(widgetWebServices(), Config{}); err == nil {
		t.Error("Build without definitions succeeded")
	}
	if _, err := Build(widgetWebServices(), Config{Definitions: MergeDefinitions()}); err == nil || !strings.Contains(err.Error(), "cannot build OpenAPI v2 document") {
		t.Errorf("Build with a route type missing from the definitions: %v", err)
	}
	docs, err := Build(widgetWebServices(), Config{Title: "t", Version: "v1.0.0",
		Namer: NewDefinitionNamer(testapi.NewScheme()), Definitions: MergeDefinitions(nil, widgetDefinitions)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := docs.V2.Paths.Paths["/apis/test.apigen.dev/"]; !ok {
		t.Errorf("v2 paths %v lack the group path", sortedKeys(docs.V2.Paths.Paths))
	}
	if len(docs.V3) != 1 || docs.V3["apis/test.apigen.dev/v1"] == nil {
		t.Fatalf("v3 documents %v, want only apis/test.apigen.dev/v1", sortedKeys(docs.V3))
	}
	if _, ok := docs.V3["apis/test.apigen.dev/v1"].Components.Schemas["dev.apigen.test.v1.Widget"]; !ok {
		t.Error("v3 document lacks dev.apigen.test.v1.Widget")
	}
}

func TestServiceServesV3Index(t *testing.T) {
	docs, err := Build(widgetWebServices(), Config{Namer: NewDefinitionNamer(testapi.NewScheme()), Definitions: widgetDefinitions})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(docs)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	svc.Install(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + PathV3)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var index struct {
		Paths map[string]map[string]string `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		t.Fatal(err)
	}
	url := index.Paths["apis/test.apigen.dev/v1"]["serverRelativeURL"]
	if !strings.HasPrefix(url, "/openapi/v3/apis/test.apigen.dev/v1?hash=") {
		t.Fatalf("index %s", body)
	}
	resp, err = http.Get(srv.URL + url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
		t.Errorf("GET %s: %d, ETag %q", url, resp.StatusCode, resp.Header.Get("ETag"))
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+PathV2, nil)
	req.Header.Set("Accept", "application/yaml")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("/openapi/v2 as YAML: %d, want 406", resp.StatusCode)
	}
}

package customresource

import (
	"fmt"
	"sort"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/apigen-dev/apigen/runtime/apiextensions/crdopenapi"
	"github.com/apigen-dev/apigen/runtime/openapi"
)

// openAPISource names the Handler's documents in the server's openapi.Service.
const openAPISource = "customresources"

// crdVersions lists the served versions of resources for crdopenapi, by plural and version.
func crdVersions(group string, resources map[string]*resource) []crdopenapi.Version {
	plurals := make([]string, 0, len(resources))
	for p := range resources {
		plurals = append(plurals, p)
	}
	sort.Strings(plurals)
	var out []crdopenapi.Version
	for _, p := range plurals {
		def := resources[p].def
		for _, v := range def.Versions {
			out = append(out, crdopenapi.Version{Group: group, Version: v.Name, Kind: def.Names.Kind,
				ListKind: def.Names.listKind(), Schema: v.OpenAPISchema})
		}
	}
	return out
}

// groupOpenAPI builds the OpenAPI documents of a group from its container's routes, as
// apiextensions-apiserver's OpenAPI controllers publish every served version of its CRDs:
// the OpenAPI v3 document of each version with the schemas as written, and a Swagger 2.0
// document with the schemas converted to v2 (crdopenapi.V2).
func groupOpenAPI(container *restful.Container, versions []crdopenapi.Version) (*openapi.Documents, error) {
	config := func(form crdopenapi.Form) (openapi.Config, error) {
		defs, err := crdopenapi.Definitions(versions, form)
		return openapi.Config{Title: "Kubernetes CRD Swagger", Version: "v0.1.0", Namer: crdopenapi.Namer(), Definitions: defs}, err
	}
	var docs openapi.Documents
	cfg, err := config(crdopenapi.V3)
	if err == nil {
		docs.V3, err = openapi.BuildV3(container.RegisteredWebServices(), cfg)
	}
	if err == nil {
		cfg, err = config(crdopenapi.V2)
	}
	if err == nil {
		docs.V2, err = openapi.BuildV2(container.RegisteredWebServices(), cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot build the OpenAPI documents of custom resources: %w", err)
	}
	return &docs, nil
}

// ServeOpenAPI makes svc serve the documents of the served custom resources, now and after
// every Set and Remove (runtime/server.OpenAPISource).
func (h *Handler) ServeOpenAPI(svc *openapi.Service) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.openAPI = svc
	h.publishOpenAPI()
}

// publishOpenAPI hands the documents of every served group, by name, to the openapi.Service;
// h.mu must be held.
func (h *Handler) publishOpenAPI() {
	if h.openAPI == nil {
		return
	}
	served := *h.served.Load()
	names := make([]string, 0, len(served))
	for name := range served {
		names = append(names, name)
	}
	sort.Strings(names)
	docs := make([]*openapi.Documents, 0, len(names))
	for _, name := range names {
		docs = append(docs, served[name].openapi)
	}
	if len(docs) == 0 {
		h.openAPI.SetSource(openAPISource, nil)
		return
	}
	h.openAPI.SetSource(openAPISource, openapi.MergeDocuments(docs...))
}

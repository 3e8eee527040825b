package openapi

import (
	"fmt"
	"net/http"

	"k8s.io/kube-openapi/pkg/handler3"
)

// Paths the documents are served at.
const (
	PathV2 = "/openapi/v2"
	PathV3 = "/openapi/v3"
)

// Mux is where Install registers handlers; *http.ServeMux implements it. A pattern ending in
// "/" matches every path under it, as in http.ServeMux.
type Mux interface {
	Handle(pattern string, handler http.Handler)
}

// Service serves a server's documents. It is immutable once built and safe for concurrent
// use.
type Service struct {
	v2 *v2Handler
	v3 *handler3.OpenAPIService
}

// NewService encodes docs for serving. It fails when a document cannot be encoded.
func NewService(docs *Documents) (*Service, error) {
	v2, err := newV2Handler(docs.V2)
	if err != nil {
		return nil, fmt.Errorf("cannot serve OpenAPI documents: %w", err)
	}
	v3 := handler3.NewOpenAPIService()
	for _, key := range sortedKeys(docs.V3) {
		v3.UpdateGroupVersion(key, docs.V3[key])
	}
	return &Service{v2: v2, v3: v3}, nil
}

// Install registers PathV2, PathV3 and PathV3+"/" (the group-version documents) on mux.
func (s *Service) Install(mux Mux) {
	mux.Handle(PathV2, s.v2)
	mux.Handle(PathV3, http.HandlerFunc(s.v3.HandleDiscovery))
	mux.Handle(PathV3+"/", http.HandlerFunc(s.v3.HandleGroupVersion))
}

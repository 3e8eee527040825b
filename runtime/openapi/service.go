package openapi

import (
	"fmt"
	"net/http"
	"sync"

	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
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

// Service serves a server's documents: the static ones it is built with, plus the documents
// of sources that change while the server runs (custom resources, aggregated servers), as
// kube-apiserver's OpenAPI services take its CRDs' and APIServices' specs. Safe for
// concurrent use.
type Service struct {
	v3 *handler3.OpenAPIService

	mu sync.Mutex
	// build builds the static documents (NewLazyService) on the first request; nil once
	// called. buildErr is its error, served to every request since.
	build    func() (*Documents, error)
	buildErr error
	// static is the static Swagger document; dynamic the documents of each source.
	static  *spec.Swagger
	dynamic map[string]*Documents
	// v2 serves the merged Swagger document; nil after a change until the next request.
	v2 *v2Handler
	// staticV3 are the static group versions' documents, served unless a source has one.
	staticV3 map[string]*spec3.OpenAPI
}

// NewService encodes docs for serving. It fails when a document cannot be encoded.
func NewService(docs *Documents) (*Service, error) {
	s := NewLazyService(func() (*Documents, error) { return docs, nil })
	if _, err := s.v2Handler(); err != nil {
		return nil, fmt.Errorf("cannot serve OpenAPI documents: %w", err)
	}
	return s, nil
}

// NewLazyService serves the documents build returns, calling it on the first request of any
// document, as kube-apiserver builds its OpenAPI lazily: a server at rest that no client asked
// for them holds neither the documents nor the garbage of building them (about 20 MiB of
// resident memory for the example server's groups). A build error is served to every
// request (500). Sources may be set before the build.
func NewLazyService(build func() (*Documents, error)) *Service {
	return &Service{v3: handler3.NewOpenAPIService(), build: build, dynamic: map[string]*Documents{},
		staticV3: map[string]*spec3.OpenAPI{}}
}

// built calls build once, registering the static group versions no source serves; it
// returns build's error. s.mu must be held.
func (s *Service) built() error {
	if s.build == nil {
		return s.buildErr
	}
	docs, err := s.build()
	s.build = nil
	if err != nil {
		s.buildErr = err
		return err
	}
	s.static = docs.V2
	for _, key := range sortedKeys(docs.V3) {
		s.staticV3[key] = docs.V3[key]
		if s.otherSource("", key) == nil {
			s.v3.UpdateGroupVersion(key, docs.V3[key])
		}
	}
	return nil
}

// serveBuilt wraps a handler of s.v3 so that the static documents are built first.
func (s *Service) serveBuilt(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		err := s.built()
		s.mu.Unlock()
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		h(w, r)
	}
}

// SetSource replaces the documents of source (a name, e.g. "customresources"; nil docs
// removes them): its Swagger paths and definitions are merged into /openapi/v2 (a path or
// definition the static document or an earlier source, by name, has is kept), and its group
// versions are served under /openapi/v3 in place of the static ones (a proxied group version
// is the backend's, not the local copy's); a group version a source stops serving goes back
// to another source's, the static one, or away. Their ETags change with them.
func (s *Service) SetSource(source string, docs *Documents) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.dynamic[source]
	if docs == nil {
		delete(s.dynamic, source)
	} else {
		s.dynamic[source] = docs
	}
	if old != nil {
		for key := range old.V3 {
			if docs != nil && docs.V3[key] != nil {
				continue
			}
			if doc := s.otherSource(source, key); doc != nil {
				s.v3.UpdateGroupVersion(key, doc)
			} else if doc := s.staticV3[key]; doc != nil {
				s.v3.UpdateGroupVersion(key, doc)
			} else {
				s.v3.DeleteGroupVersion(key)
			}
		}
	}
	if docs != nil {
		for _, key := range sortedKeys(docs.V3) {
			s.v3.UpdateGroupVersion(key, docs.V3[key])
		}
	}
	s.v2 = nil
}

// otherSource returns the document of the group version key of a source other than source,
// the first by name, or nil.
func (s *Service) otherSource(source, key string) *spec3.OpenAPI {
	for _, name := range sortedKeys(s.dynamic) {
		if doc := s.dynamic[name].V3[key]; name != source && doc != nil {
			return doc
		}
	}
	return nil
}

// v2Handler returns the handler of the merged Swagger document, building it after a change.
func (s *Service) v2Handler() (*v2Handler, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.built(); err != nil {
		return nil, err
	}
	if s.v2 != nil {
		return s.v2, nil
	}
	merged := MergeSwagger(s.static, nil)
	names := sortedKeys(s.dynamic)
	for _, name := range names {
		merged = MergeSwagger(merged, s.dynamic[name].V2)
	}
	h, err := newV2Handler(merged)
	if err != nil {
		return nil, err
	}
	s.v2 = h
	return h, nil
}

// serveV2 serves /openapi/v2.
func (s *Service) serveV2(w http.ResponseWriter, r *http.Request) {
	h, err := s.v2Handler()
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	h.ServeHTTP(w, r)
}

// Install registers PathV2, PathV3 and PathV3+"/" (the group-version documents) on mux.
func (s *Service) Install(mux Mux) {
	mux.Handle(PathV2, http.HandlerFunc(s.serveV2))
	mux.Handle(PathV3, s.serveBuilt(s.v3.HandleDiscovery))
	mux.Handle(PathV3+"/", s.serveBuilt(s.v3.HandleGroupVersion))
}

// MergeSwagger returns a new document with the paths and definitions of dst, then those of
// src that dst lacks (nil src: a shallow copy of dst). dst's info and other fields are kept.
func MergeSwagger(dst, src *spec.Swagger) *spec.Swagger {
	out := *dst
	out.Paths = &spec.Paths{Paths: map[string]spec.PathItem{}}
	out.Definitions = spec.Definitions{}
	for _, d := range []*spec.Swagger{dst, src} {
		if d == nil {
			continue
		}
		if d.Paths != nil {
			for path, item := range d.Paths.Paths {
				if _, ok := out.Paths.Paths[path]; !ok {
					out.Paths.Paths[path] = item
				}
			}
		}
		for name, def := range d.Definitions {
			if _, ok := out.Definitions[name]; !ok {
				out.Definitions[name] = def
			}
		}
	}
	return &out
}

// MergeDocuments returns the union of docs: their Swagger documents merged in order
// (MergeSwagger; nil when none has one) and every group version's OpenAPI v3 document, the
// first for a group version two of docs have.
func MergeDocuments(docs ...*Documents) *Documents {
	out := &Documents{V3: map[string]*spec3.OpenAPI{}}
	for _, d := range docs {
		if d == nil {
			continue
		}
		if d.V2 != nil {
			if out.V2 == nil {
				out.V2 = MergeSwagger(d.V2, nil)
			} else {
				out.V2 = MergeSwagger(out.V2, d.V2)
			}
		}
		for _, k := range sortedKeys(d.V3) {
			if out.V3[k] == nil {
				out.V3[k] = d.V3[k]
			}
		}
	}
	return out
}

package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/request"
)

// openAPISource names the backends' documents in the server's openapi.Service.
const openAPISource = "aggregator"

// openAPIProxy holds the OpenAPI v3 document each backend serves for its proxied group
// versions, as kube-aggregator's OpenAPI v3 controller downloads them, for the server's
// /openapi/v3. Safe for concurrent use.
type openAPIProxy struct {
	mu  sync.Mutex
	svc *openapi.Service
	// specs maps a proxied group version to its document and the backend URL it was read
	// from (serverRelativeURL, whose hash changes with the document).
	specs map[schema.GroupVersion]fetchedSpec
	// published is what svc serves.
	published map[schema.GroupVersion]fetchedSpec
}

// fetchedSpec is one backend document.
type fetchedSpec struct {
	url string
	doc *spec3.OpenAPI
}

// ServeOpenAPI makes svc serve the OpenAPI v3 documents of the proxied group versions, read
// from their backends at every availability check, as kube-aggregator serves its
// APIServices' (server.OpenAPISource).
func (a *Aggregator) ServeOpenAPI(svc *openapi.Service) {
	a.openAPI.mu.Lock()
	a.openAPI.svc = svc
	a.openAPI.mu.Unlock()
	a.publishOpenAPI()
}

// fetchOpenAPI reads e's backend's /openapi/v3 index and, when the document of e's group
// version is listed under a URL not read before, that document. A backend without one
// keeps none; a failure keeps the last one.
func (a *Aggregator) fetchOpenAPI(ctx context.Context, client *http.Client, e *entry, base *url.URL) {
	gv := gvOf(e.obj.Spec.Group, e.obj.Spec.Version)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := getJSON(ctx, client, base.JoinPath("openapi", "v3"), &index); err != nil {
		a.log.Debug("cannot read a backend's OpenAPI v3 index", "apiservice", e.obj.Name, "err", err)
		return
	}
	rel := index.Paths["apis/"+gv.Group+"/"+gv.Version].ServerRelativeURL
	a.openAPI.mu.Lock()
	have, ok := a.openAPI.specs[gv]
	a.openAPI.mu.Unlock()
	if rel == "" || (ok && have.url == rel) {
		if rel == "" {
			a.openAPI.set(gv, nil)
		}
		return
	}
	ref, err := url.Parse(rel)
	if err != nil {
		return
	}
	doc := &spec3.OpenAPI{}
	if err := getJSON(ctx, client, base.ResolveReference(ref), doc); err != nil {
		a.log.Debug("cannot read a backend's OpenAPI v3 document", "apiservice", e.obj.Name, "err", err)
		return
	}
	a.openAPI.set(gv, &fetchedSpec{url: rel, doc: doc})
}

// set records (nil: forgets) the document of gv.
func (p *openAPIProxy) set(gv schema.GroupVersion, s *fetchedSpec) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.specs == nil {
		p.specs = map[schema.GroupVersion]fetchedSpec{}
	}
	if s == nil {
		delete(p.specs, gv)
	} else {
		p.specs[gv] = *s
	}
}

// publishOpenAPI hands the documents of the group versions proxied now to the server's
// openapi.Service when they changed.
func (a *Aggregator) publishOpenAPI() {
	snap := a.state.Load()
	p := &a.openAPI
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.svc == nil {
		return
	}
	current := map[schema.GroupVersion]fetchedSpec{}
	for gv, s := range p.specs {
		if e := snap.byGV[gv]; e != nil && !e.local() {
			current[gv] = s
		}
	}
	if maps.EqualFunc(current, p.published, func(x, y fetchedSpec) bool { return x.url == y.url }) && p.published != nil {
		return
	}
	docs := &openapi.Documents{V3: map[string]*spec3.OpenAPI{}}
	for gv, s := range current {
		docs.V3["apis/"+gv.Group+"/"+gv.Version] = s.doc
	}
	p.svc.SetSource(openAPISource, docs)
	p.published = current
}

// getJSON GETs u as system:kube-aggregator and decodes the 200 response into into.
func getJSON(ctx context.Context, client *http.Client, u *url.URL, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	setIdentity(req.Header, &request.User{Name: "system:kube-aggregator", Groups: []string{request.SystemPrivilegedGroup}})
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBytes))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	return json.Unmarshal(data, into)
}

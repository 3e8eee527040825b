package discovery

import (
	"net/http"
	"strings"
	"sync"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ContentType is the media type of every discovery response.
const ContentType = "application/json"

// NewAPIGroup returns the discovery document of group serving versions, most preferred first;
// versions must not be empty.
func NewAPIGroup(group string, versions []schema.GroupVersion) metav1.APIGroup {
	g := metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     group,
		Versions: make([]metav1.GroupVersionForDiscovery, 0, len(versions)),
	}
	for _, gv := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version})
	}
	if len(g.Versions) > 0 {
		g.PreferredVersion = g.Versions[0]
	}
	return g
}

// APIVersionsHandler serves /api: a metav1.APIVersions listing no versions, which tells
// clients the server has no legacy core group. A server that serves the core group uses
// NewAPIVersions instead.
func APIVersionsHandler() http.Handler {
	return NewAPIVersions(nil)
}

// APIVersions serves /api: the metav1.APIVersions of the core (legacy) group, as
// kube-apiserver's /api ({"kind":"APIVersions","versions":["v1"],...}). versions returns
// the served versions at request time ("v1"); nil, or an empty result, lists none. It is
// safe for concurrent use when versions is.
type APIVersions struct {
	versions func() []string
}

// NewAPIVersions returns the /api handler listing what versions returns.
func NewAPIVersions(versions func() []string) *APIVersions {
	return &APIVersions{versions: versions}
}

// ServeHTTP writes the metav1.APIVersions.
func (a *APIVersions) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	body := &metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions", APIVersion: "v1"},
		Versions:                   []string{},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{},
	}
	if a.versions != nil {
		if vs := a.versions(); len(vs) > 0 {
			body.Versions = vs
		}
	}
	responsewriters.WriteJSON(w, http.StatusOK, body)
}

// RootAPIs serves /apis: the groups added so far, in the order they were added. It is safe
// for concurrent use.
type RootAPIs struct {
	mu     sync.RWMutex
	groups []metav1.APIGroup
}

// AddGroup adds group to the list, replacing a group of the same name.
func (r *RootAPIs) AddGroup(group metav1.APIGroup) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.groups {
		if r.groups[i].Name == group.Name {
			r.groups[i] = group
			return
		}
	}
	r.groups = append(r.groups, group)
}

// Groups returns a copy of the groups' list.
func (r *RootAPIs) Groups() []metav1.APIGroup {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]metav1.APIGroup{}, r.groups...)
}

// ServeHTTP writes the metav1.APIGroupList.
func (r *RootAPIs) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	list := &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   r.Groups(),
	}
	responsewriters.WriteJSON(w, http.StatusOK, list)
}

// NewGroupWebService returns a WebService rooted at /apis/<group.Name> that serves group on
// GET, as kube-apiserver's APIGroupHandler. A server adds it to its container so that every
// path under the group reaches the container (and unknown versions get a 404 from it).
func NewGroupWebService(group metav1.APIGroup) *restful.WebService {
	group.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	ws := new(restful.WebService).Path("/apis/" + group.Name).Produces(ContentType)
	ws.Route(ws.GET("/").To(func(_ *restful.Request, resp *restful.Response) {
		responsewriters.WriteJSON(resp.ResponseWriter, http.StatusOK, &group)
	}).Operation("getAPIGroup").Doc("get information of a group"))
	return ws
}

// ResourceListPath is where the APIResourceList of groupVersion is served: /api/v1 for the
// core group's "v1", /apis/<group>/<version> otherwise.
func ResourceListPath(groupVersion string) string {
	groupVersion = strings.TrimPrefix(groupVersion, "/")
	if !strings.Contains(groupVersion, "/") {
		return "/api/" + groupVersion
	}
	return "/apis/" + groupVersion
}

// InstallResourceList serves list on GET ResourceListPath(list.GroupVersion) in container: on the
// container's WebService with that root (the one the endpoints installer made) if there is
// one, else on a new WebService it adds.
func InstallResourceList(container *restful.Container, list *metav1.APIResourceList) {
	body := *list
	body.TypeMeta = metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}
	if body.APIResources == nil {
		body.APIResources = []metav1.APIResource{}
	}
	root := ResourceListPath(list.GroupVersion)
	var ws *restful.WebService
	for _, have := range container.RegisteredWebServices() {
		if have.RootPath() == root {
			ws = have
		}
	}
	if ws == nil {
		ws = new(restful.WebService).Path(root).Produces(ContentType)
		defer container.Add(ws)
	}
	ws.Route(ws.GET("/").To(func(_ *restful.Request, resp *restful.Response) {
		responsewriters.WriteJSON(resp.ResponseWriter, http.StatusOK, &body)
	}).Operation("getAPIResources").Doc("get available resources").Produces(ContentType))
}

package customresource

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion"
	"github.com/apigen-dev/apigen/runtime/apiextensions/crdopenapi"
	"github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

// resource is one served Definition: a registry.Store per served version over one storage.
type resource struct {
	def Definition
	// removed is canceled when the resource stops being served (Remove, or a Set for a
	// recreated CRD with a new UID): its open watches end then, as kube-apiserver ends them
	// when it destroys a custom resource's storage.
	removed context.Context
	remove  context.CancelFunc
	// converter is the conversion webhook of a Definition with one; nil converts by
	// changing apiVersion only.
	converter *conversion.Webhook
	// stores maps each served version to its Store; statuses and scales hold the
	// subresources of the versions that enable them.
	stores   map[string]*registry.Store
	statuses map[string]*registry.StatusStore
	scales   map[string]*registry.ScaleStore
}

// newResource builds the storage and Stores of def.
func (h *Handler) newResource(def Definition) (*resource, error) {
	gr := def.resource()
	storageGVK := def.storageGVK()
	var converter *conversion.Webhook
	if def.Webhook != nil {
		converter = conversion.NewWebhook(h.webhooks, *def.Webhook)
	}
	codec := &storageCodec{gvk: storageGVK, version: def.version(def.StorageVersion), converter: converter}
	newObj := func() runtime.Object {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetGroupVersionKind(storageGVK)
		return u
	}
	listGVK := storageGVK.GroupVersion().WithKind(def.Names.listKind())
	newList := func() runtime.Object {
		l := &unstructured.UnstructuredList{Object: map[string]any{}}
		l.SetGroupVersionKind(listGVK)
		return l
	}
	st, err := h.cfg.Storage.NewStorageWithCodec(gr, codec, newObj)
	if err != nil {
		return nil, fmt.Errorf("cannot create the storage of %s: %w", gr, err)
	}
	singular := def.Names.Singular
	if singular == "" {
		singular = strings.ToLower(def.Names.Kind)
	}
	r := &resource{def: def, converter: converter, stores: map[string]*registry.Store{},
		statuses: map[string]*registry.StatusStore{}, scales: map[string]*registry.ScaleStore{}}
	r.removed, r.remove = context.WithCancel(context.Background())
	for i := range def.Versions {
		v := &def.Versions[i]
		gv := schema.GroupVersion{Group: def.Group, Version: v.Name}
		tc, err := tableconvertor.New(v.PrinterColumns)
		if err != nil {
			return nil, fmt.Errorf("cannot serve %s/%s: %w", gr, v.Name, err)
		}
		store := &registry.Store{
			NewFunc: newObj, NewListFunc: newList,
			DefaultQualifiedResource:  gr,
			SingularQualifiedResource: schema.GroupResource{Group: def.Group, Resource: singular},
			Strategy:                  &strategy{namespaced: def.Namespaced, version: v, converter: converter, gv: gv},
			Storage:                   st,
			StorageGroupVersion:       schema.GroupVersion{Group: def.Group, Version: def.StorageVersion},
			ShortNameList:             def.Names.ShortNames,
			CategoryList:              def.Names.Categories,
			TableConvertor:            tc,
			SelectableFields:          v.SelectableFields,
			Admission:                 h.cfg.Admission,
		}
		r.stores[v.Name] = store
		if v.Status {
			r.statuses[v.Name] = registry.NewStatusStore(store, &strategy{namespaced: def.Namespaced, version: v, statusOnly: true, converter: converter, gv: gv})
		}
		if v.Scale != nil {
			r.scales[v.Name] = registry.NewScaleStoreFor(store, scaleFields{spec: *v.Scale})
		}
	}
	return r, nil
}

// anyStore returns the Store of the first served version (they all share one storage).
func (r *resource) anyStore() *registry.Store {
	return r.stores[r.def.Versions[0].Name]
}

// deleteAll deletes every object in namespace ("" for all) and counts what is left.
func (r *resource) deleteAll(ctx context.Context, namespace string) (int, error) {
	store := r.anyStore()
	ctx = request.WithNamespace(ctx, namespace)
	if _, err := store.DeleteCollection(ctx, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
		return 0, err
	}
	left, err := store.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return 0, err
	}
	return meta.LenList(left), nil
}

// group is the served state of one API group: a go-restful container with the routes and
// discovery of all its resources, rebuilt on every Set and Remove of one of them.
type group struct {
	container *restful.Container
	apiGroup  metav1.APIGroup
	resources map[string]*resource
	// warnings maps "<version>/<plural>" to the deprecation warning of a deprecated version.
	warnings map[string]string
	// openapi are the group's OpenAPI documents.
	openapi *openapi.Documents
	// lists are the discovery lists of the group's versions, most preferred first.
	lists []*metav1.APIResourceList
}

// newGroup builds the container serving resources (keyed by plural) of group name.
func newGroup(name string, resources map[string]*resource) (*group, error) {
	g := &group{resources: resources, warnings: map[string]string{}}
	kinds := &groupKinds{group: name, byKind: map[string]*resource{}}
	info := &registry.APIGroupInfo{Group: name, VersionedResourcesStorageMap: map[string]map[string]rest.Storage{}}
	var versions []string
	for plural, r := range resources {
		kinds.byKind[r.def.Names.Kind] = r
		kinds.byKind[r.def.Names.listKind()] = r
		for _, v := range r.def.Versions {
			m := info.VersionedResourcesStorageMap[v.Name]
			if m == nil {
				m = map[string]rest.Storage{}
				info.VersionedResourcesStorageMap[v.Name] = m
				versions = append(versions, v.Name)
			}
			m[plural] = r.stores[v.Name]
			if s := r.statuses[v.Name]; s != nil {
				m[plural+"/status"] = s
			}
			if s := r.scales[v.Name]; s != nil {
				m[plural+"/scale"] = s
			}
			if v.Deprecated {
				msg := v.DeprecationWarning
				if msg == "" {
					msg = name + "/" + v.Name + " " + r.def.Names.Kind + " is deprecated"
				}
				g.warnings[v.Name+"/"+plural] = msg
			}
		}
	}
	sortVersions(versions)
	for _, v := range versions {
		info.PrioritizedVersions = append(info.PrioritizedVersions, schema.GroupVersion{Group: name, Version: v})
	}
	g.container = restful.NewContainer()
	g.container.Router(endpoints.NewRouter())
	g.container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	crdVersions := crdVersions(name, resources)
	endpointsKinds := kinds.endpointsKinds()
	tc, err := crdopenapi.TypeConverter(crdVersions)
	if err != nil {
		return nil, err
	}
	endpointsKinds.TypeConverter = tc
	lists, err := endpoints.InstallAPIGroupWithKinds(g.container, info, endpointsKinds)
	if err != nil {
		return nil, err
	}
	if g.openapi, err = groupOpenAPI(g.container, crdVersions); err != nil {
		return nil, err
	}
	g.apiGroup = discovery.NewAPIGroup(name, info.PrioritizedVersions)
	g.container.Add(discovery.NewGroupWebService(g.apiGroup))
	for _, list := range lists {
		sort.Slice(list.APIResources, func(i, j int) bool { return list.APIResources[i].Name < list.APIResources[j].Name })
		discovery.InstallResourceList(g.container, list)
	}
	g.lists = lists
	return g, nil
}

// serves reports whether the group serves the path split into parts ("apis", group,
// version, rest): the group itself, or one of its versions.
func (g *group) serves(parts []string) bool {
	if len(parts) < 3 || parts[2] == "" {
		return true
	}
	_, ok := g.versionServed(parts[2])
	return ok
}

// versionServed reports whether version is one of the group's.
func (g *group) versionServed(version string) (string, bool) {
	for _, v := range g.apiGroup.Versions {
		if v.Version == version {
			return v.GroupVersion, true
		}
	}
	return "", false
}

// ServeHTTP serves the request from the group's container, with the deprecation warning of
// a deprecated version's resource; a watch ends when its resource stops being served.
func (g *group) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	version, plural, watching := resourceOf(r)
	if msg, ok := g.warnings[version+"/"+plural]; ok {
		w.Header().Add("Warning", "299 - "+strconv.Quote(msg))
	}
	if res := g.resources[plural]; res != nil && watching {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(res.removed, cancel)()
		r = r.WithContext(ctx)
	}
	g.container.ServeHTTP(w, r)
}

// resourceOf returns the version and resource of a request path
// (/apis/<group>/<version>[/watch][/namespaces/<ns>]/<plural>/...), "" when it names none,
// and whether it is a watch (the legacy /watch/ path or ?watch=true).
func resourceOf(r *http.Request) (version, plural string, watching bool) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 4 {
		return "", "", false
	}
	version, rest := parts[2], parts[3:]
	if rest[0] == "watch" {
		watching, rest = true, rest[1:]
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	if len(rest) == 0 {
		return version, "", watching
	}
	if w := r.URL.Query().Get("watch"); w != "" && w != "false" && w != "0" {
		watching = true
	}
	return version, rest[0], watching
}

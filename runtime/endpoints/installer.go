package endpoints

import (
	"fmt"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// InstallAPIGroup registers one go-restful WebService per served version of info (path
// /apis/<group>/<version>) on container and returns, per version in
// info.PrioritizedVersions order, the discovery APIResourceList (apiVersion v1). Routes and
// verbs follow the rest interfaces each storage implements, as kube-apiserver's
// registerResourceHandlers; resource paths are "widgets" or "widgets/status". Errors name
// the version and resource whose storage cannot be installed (its kind unknown to
// info.Scheme, a subresource without its resource, an unknown scope).
//
// Install responsewriters.ServiceErrorHandler on container too, so routing errors are metav1.Status.
func InstallAPIGroup(container *restful.Container, info *registry.APIGroupInfo) ([]*metav1.APIResourceList, error) {
	if info == nil || info.Scheme == nil {
		return nil, fmt.Errorf("cannot install an API group without a scheme")
	}
	return InstallAPIGroupWithKinds(container, info, SchemeKinds(info.Scheme))
}

// InstallAPIGroupWithKinds is InstallAPIGroup with the objects' creater, typer, defaulter,
// convertors and serializers given by kinds instead of info.Scheme (which may be nil), as
// apiextensions-apiserver builds its own RequestScope for the unstructured objects of custom
// resources. Every Creater, Typer, Defaulter, Convertor and UnsafeConvertor must be set.
func InstallAPIGroupWithKinds(container *restful.Container, info *registry.APIGroupInfo, kinds Kinds) ([]*metav1.APIResourceList, error) {
	if info == nil || kinds.Creater == nil || kinds.Typer == nil || kinds.Defaulter == nil || kinds.Convertor == nil || kinds.UnsafeConvertor == nil {
		return nil, fmt.Errorf("cannot install an API group without its creater, typer, defaulter and convertors")
	}
	kinds.Convertor = failedConversions{kinds.Convertor, kinds.Typer}
	kinds.UnsafeConvertor = failedConversions{kinds.UnsafeConvertor, kinds.Typer}
	sers := newSerializers(kinds)
	tc := groupTypeConverter(info, kinds)
	var lists []*metav1.APIResourceList
	var services []*restful.WebService
	for _, gv := range info.PrioritizedVersions {
		ws, list, err := installVersion(info, sers, tc, gv)
		if err != nil {
			return nil, fmt.Errorf("cannot install %s: %w", gv, err)
		}
		services = append(services, ws)
		lists = append(lists, list)
	}
	for _, ws := range services {
		container.Add(ws)
	}
	return lists, nil
}

// installVersion builds the WebService and discovery list of one version.
func installVersion(info *registry.APIGroupInfo, sers *serializers, tc func() (managedfields.TypeConverter, error), gv schema.GroupVersion) (*restful.WebService, *metav1.APIResourceList, error) {
	root := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		root = "/api/" + gv.Version // the core (legacy) group, as kube-apiserver's /api/v1
	}
	ws := new(restful.WebService).Path(root).
		Doc("API at "+root).
		Consumes("*/*").Produces(mediaJSON, mediaYAML)
	list := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
	storages := info.VersionedResourcesStorageMap[gv.Version]
	paths := make([]string, 0, len(storages))
	for path := range storages {
		paths = append(paths, path)
	}
	sort.Strings(paths) // "widgets" before "widgets/status"
	for _, path := range paths {
		resource, sub, _ := strings.Cut(path, "/")
		if sub != "" && storages[resource] == nil {
			return nil, nil, fmt.Errorf("cannot serve %s without %s", path, resource)
		}
		s, err := newScope(sers, gv, resource, sub, storages[path], storages[resource])
		if err != nil {
			return nil, nil, fmt.Errorf("cannot install %s: %w", path, err)
		}
		s.newFieldManager(tc)
		if verbs, ok := info.Verbs[gv.Version][path]; ok {
			s.allowed = map[string]bool{}
			for _, v := range verbs {
				s.allowed[v] = true
			}
		}
		s.deprecation = info.DeprecationWarnings[gv.Version][resource]
		if err := s.registerRoutes(ws); err != nil {
			return nil, nil, fmt.Errorf("cannot install %s: %w", path, err)
		}
		list.APIResources = append(list.APIResources, s.apiResource())
	}
	return ws, list, nil
}

// newScope resolves the kinds of one resource path in gv. parent is the main resource's
// storage (the scope of a subresource is its resource's).
func newScope(sers *serializers, gv schema.GroupVersion, resource, sub string,
	storage, parent rest.Storage) (*scope, error) {
	kinds, _, err := sers.Typer.ObjectKinds(storage.New())
	if err != nil || len(kinds) == 0 {
		return nil, fmt.Errorf("cannot find the kind of %T in the scheme: %w", storage.New(), err)
	}
	kind := gv.WithKind(kinds[0].Kind)
	if p, ok := storage.(rest.GroupVersionKindProvider); ok {
		kind = p.GroupVersionKind(gv) // e.g. autoscaling/v1 Scale for widgets/scale
	}
	if !sers.Typer.Recognizes(kind) {
		return nil, fmt.Errorf("the scheme does not know %s", kind)
	}
	scoper, ok := parent.(rest.Scoper)
	if !ok {
		return nil, fmt.Errorf("the storage of %s does not say whether it is namespaced (rest.Scoper)", resource)
	}
	parentKinds, _, err := sers.Typer.ObjectKinds(parent.New())
	if err != nil || len(parentKinds) == 0 {
		return nil, fmt.Errorf("cannot find the kind of %T in the scheme: %w", parent.New(), err)
	}
	return &scope{
		serializers: sers, gv: gv, kind: kind, hubGV: kinds[0].GroupVersion(), resourceKind: parentKinds[0].Kind,
		decoder:  sers.decoder(kind, kinds[0].GroupVersion()),
		resource: resource, subresource: sub, namespaced: scoper.NamespaceScoped(),
		storage: storage, qualified: schema.GroupResource{Group: gv.Group, Resource: resource},
		encodings: newEncodingCache(), frames: newFrameCache(), pages: newPageCache(),
	}, nil
}

// verbs returns the discovery verbs of the scope's storage, sorted as kube does.
func (s *scope) verbs() []string {
	var verbs []string
	add := func(ok bool, vs ...string) {
		if ok {
			verbs = append(verbs, vs...)
		}
	}
	_, getter := s.storage.(rest.Getter)
	_, lister := s.storage.(rest.Lister)
	_, creater := s.storage.(rest.Creater)
	_, updater := s.storage.(rest.Updater)
	_, deleter := s.storage.(rest.GracefulDeleter)
	_, collectionDeleter := s.storage.(rest.CollectionDeleter)
	_, watcher := s.storage.(rest.Watcher)
	add(getter && s.allows("get"), "get")
	add(lister && s.subresource == "" && s.allows("list"), "list")
	add(creater && s.subresource == "" && s.allows("create"), "create")
	add(updater && s.allows("update"), "update")
	add(updater && s.allows("patch"), "patch")
	add(deleter && s.allows("delete"), "delete")
	add(collectionDeleter && s.subresource == "" && s.allows("deletecollection"), "deletecollection")
	add(watcher && s.subresource == "" && s.allows("watch"), "watch")
	sort.Strings(verbs)
	return verbs
}

// apiResource is the scope's discovery entry.
func (s *scope) apiResource() metav1.APIResource {
	r := metav1.APIResource{
		Name: s.resourcePath(), Namespaced: s.namespaced, Kind: s.kind.Kind, Verbs: s.verbs(),
	}
	if s.kind.GroupVersion() != s.gv {
		// A foreign kind (rest.GroupVersionKindProvider), as kube lists autoscaling/v1 Scale.
		r.Group, r.Version = s.kind.Group, s.kind.Version
	}
	if s.subresource != "" {
		return r
	}
	if p, ok := s.storage.(rest.SingularNameProvider); ok {
		r.SingularName = p.GetSingularName()
	}
	if r.SingularName == "" {
		r.SingularName = strings.ToLower(s.kind.Kind)
	}
	if p, ok := s.storage.(rest.ShortNamesProvider); ok {
		r.ShortNames = p.ShortNames()
	}
	if p, ok := s.storage.(rest.CategoriesProvider); ok {
		r.Categories = p.Categories()
	}
	if p, ok := s.storage.(rest.StorageVersionProvider); ok {
		// As kube-apiserver's installer: the storage version's group and version and the
		// resource's kind; resources with storage only (not reviews, not subresources).
		if gv := p.StorageVersion(); !gv.Empty() {
			r.StorageVersionHash = discovery.StorageVersionHash(gv.Group, gv.Version, s.resourceKind)
		}
	}
	return r
}

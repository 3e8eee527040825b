package endpoints

import (
	"fmt"
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// watchMediaType is listed in Produces of routes that can stream, as kube lists it.
const watchMediaType = "application/json;stream=watch"

// routeSet builds the routes of one scope on one WebService, with the OpenAPI metadata
// kube-openapi's builders read: operation ids as kube names them ("createNamespacedWidget"),
// x-kubernetes-group-version-kind and x-kubernetes-action.
type routeSet struct {
	s                   *scope
	ws                  *restful.WebService
	versioned, listType any // samples of the bodies routes read and write (routeSample)
	// collection is "/namespaces/{namespace}/widgets" or "/gadgets"; item adds "/{name}"
	// and the subresource.
	collection, item string
	// opScope is "Namespaced" or ""; opKind "Widget" or "WidgetStatus".
	opScope, opKind string
	// nameParam is the {name} path parameter every item route of the set shares.
	nameParam *restful.Parameter
}

// registerRoutes adds the scope's routes to ws.
func (s *scope) registerRoutes(ws *restful.WebService) error {
	versioned, err := s.newVersioned()
	if err != nil {
		return fmt.Errorf("cannot create a %s: %w", s.kind, err)
	}
	rs := &routeSet{s: s, ws: ws, versioned: routeSample(versioned, s.kind), collection: "/" + s.resource, opKind: s.resourceKind,
		nameParam: restful.PathParameter("name", "name of the "+s.kind.Kind).DataType("string")}
	if s.namespaced {
		rs.collection, rs.opScope = "/namespaces/{namespace}/"+s.resource, "Namespaced"
	}
	rs.item = rs.collection + "/{name}"
	if s.subresource != "" {
		rs.item += "/" + s.subresource
		rs.opKind += strings.ToUpper(s.subresource[:1]) + s.subresource[1:]
	}
	if lister, ok := s.storage.(rest.Lister); ok && s.subresource == "" && s.allows("list") {
		// The list kind is the storage's own (a CRD's listKind need not be <Kind>List).
		listKind := s.gv.WithKind(s.kind.Kind + "List")
		if kinds, _, err := s.Typer.ObjectKinds(lister.NewList()); err == nil && len(kinds) > 0 {
			listKind.Kind = kinds[0].Kind
		}
		list, err := s.Creater.New(listKind)
		if err != nil {
			return fmt.Errorf("cannot create a %s: %w", listKind, err)
		}
		rs.listType = routeSample(list, listKind)
		watcher, _ := s.storage.(rest.Watcher)
		if !s.allows("watch") {
			watcher = nil
		}
		rs.addList(lister, watcher)
	}
	rs.addItem()
	if s.subresource == "" {
		rs.addCollectionWrites()
		if watcher, ok := s.storage.(rest.Watcher); ok && s.allows("watch") {
			rs.addLegacyWatch(watcher)
		}
	}
	return nil
}

// modelName is the sample body of a route whose objects have no Go type of their own
// (unstructured custom resources): kube-openapi names its definition by
// OpenAPICanonicalTypeName, as apiextensions-apiserver's CRDCanonicalTypeNamer.
type modelName string

// OpenAPICanonicalTypeName returns the definition name.
func (n modelName) OpenAPICanonicalTypeName() string { return string(n) }

// routeSample returns obj, an empty object of kind, as the sample of route bodies, or, for
// an unstructured object, its modelName (openapi.KindModelName).
func routeSample(obj runtime.Object, kind schema.GroupVersionKind) any {
	if _, ok := obj.(runtime.Unstructured); ok {
		return modelName(openapi.KindModelName(kind.Group, kind.Version, kind.Kind))
	}
	return obj
}

// build starts a route with the metadata every route carries.
func (rs *routeSet) build(b *restful.RouteBuilder, path, action, operation, doc string) *restful.RouteBuilder {
	kind := rs.s.kind
	b = b.Operation(operation).Doc(doc).
		Metadata("x-kubernetes-action", action).
		Metadata("x-kubernetes-group-version-kind", metav1.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind}).
		Param(prettyParam)
	if strings.Contains(path, "{namespace}") {
		b = b.Param(namespaceParam)
	}
	if strings.Contains(path, "{name}") {
		b = b.Param(rs.nameParam)
	}
	return b
}

// addList adds LIST (and watch=true) on the collection and, for namespaced kinds, across
// namespaces.
func (rs *routeSet) addList(lister rest.Lister, watcher rest.Watcher) {
	kind := rs.s.kind.Kind
	h := rs.s.route("list", rs.s.list(lister, watcher))
	list := rs.build(rs.ws.GET(rs.collection).To(h), rs.collection, "list", "list"+rs.opScope+kind, "list or watch objects of kind "+kind)
	rs.ws.Route(listParams(list).Produces(mediaJSON, mediaYAML, watchMediaType).
		Writes(rs.listType).Returns(http.StatusOK, "OK", rs.listType))
	if rs.s.namespaced {
		all := rs.build(rs.ws.GET("/"+rs.s.resource).To(h), "/"+rs.s.resource, "list", "list"+kind+"ForAllNamespaces", "list or watch objects of kind "+kind)
		rs.ws.Route(listParams(all).Produces(mediaJSON, mediaYAML, watchMediaType).
			Writes(rs.listType).Returns(http.StatusOK, "OK", rs.listType))
	}
}

// addItem adds GET, PUT, PATCH and DELETE on one object (or its subresource).
func (rs *routeSet) addItem() {
	s, kind := rs.s, rs.s.kind.Kind
	if getter, ok := s.storage.(rest.Getter); ok && s.allows("get") {
		b := rs.build(rs.ws.GET(rs.item).To(s.route("get", s.get(getter))), rs.item, "get", "read"+rs.opScope+rs.opKind,
			"read the specified "+kind)
		rs.ws.Route(b.Writes(rs.versioned).Returns(http.StatusOK, "OK", rs.versioned))
	}
	updater, isUpdater := s.storage.(rest.Updater)
	if isUpdater && s.allows("update") {
		put := rs.build(rs.ws.PUT(rs.item).To(s.route("update", s.update(updater))), rs.item, "put", "replace"+rs.opScope+rs.opKind,
			"replace the specified "+kind)
		rs.ws.Route(writeParams(put).Reads(rs.versioned).Writes(rs.versioned).
			Returns(http.StatusOK, "OK", rs.versioned).Returns(http.StatusCreated, "Created", rs.versioned))
	}
	if isUpdater && s.allows("patch") {
		patch := rs.build(rs.ws.PATCH(rs.item).To(s.route("patch", s.patch(updater))), rs.item, "patch", "patch"+rs.opScope+rs.opKind,
			"partially update the specified "+kind)
		patch = writeParams(patch).Param(forceParam)
		rs.ws.Route(patch.Consumes(s.patchTypes()...).Reads(metav1.Patch{}).Writes(rs.versioned).
			Returns(http.StatusOK, "OK", rs.versioned).Returns(http.StatusCreated, "Created", rs.versioned))
	}
	if deleter, ok := s.storage.(rest.GracefulDeleter); ok && s.allows("delete") {
		b := rs.build(rs.ws.DELETE(rs.item).To(s.route("delete", s.deleteOne(deleter))), rs.item, "delete", "delete"+rs.opScope+rs.opKind,
			"delete a "+kind)
		rs.ws.Route(deleteParams(b).Reads(metav1.DeleteOptions{}).Writes(metav1.Status{}).
			Returns(http.StatusOK, "OK", metav1.Status{}).Returns(http.StatusAccepted, "Accepted", metav1.Status{}))
	}
}

// addCollectionWrites adds POST and DELETE on the collection.
func (rs *routeSet) addCollectionWrites() {
	s, kind := rs.s, rs.s.kind.Kind
	if creater, ok := s.storage.(rest.Creater); ok && s.allows("create") {
		b := rs.build(rs.ws.POST(rs.collection).To(s.route("create", s.create(creater))), rs.collection, "post", "create"+rs.opScope+kind,
			"create a "+kind)
		rs.ws.Route(writeParams(b).Reads(rs.versioned).Writes(rs.versioned).
			Returns(http.StatusOK, "OK", rs.versioned).Returns(http.StatusCreated, "Created", rs.versioned).
			Returns(http.StatusAccepted, "Accepted", rs.versioned))
	}
	if deleter, ok := s.storage.(rest.CollectionDeleter); ok && s.allows("deletecollection") {
		b := rs.build(rs.ws.DELETE(rs.collection).To(s.route("deletecollection", s.deleteCollection(deleter))), rs.collection,
			"deletecollection", "deletecollection"+rs.opScope+kind, "delete collection of "+kind)
		rs.ws.Route(deleteParams(listParams(b)).Reads(metav1.DeleteOptions{}).Writes(metav1.Status{}).
			Returns(http.StatusOK, "OK", metav1.Status{}))
	}
}

// addLegacyWatch adds the deprecated /watch/ paths kube still serves.
func (rs *routeSet) addLegacyWatch(watcher rest.Watcher) {
	s, kind := rs.s, rs.s.kind.Kind
	h := s.route("watch", s.legacyWatch(watcher))
	event := metav1.WatchEvent{}
	add := func(path, action, operation, doc string) {
		b := rs.build(rs.ws.GET(path).To(h), path, action, operation, doc)
		rs.ws.Route(listParams(b).Produces(mediaJSON, mediaYAML, watchMediaType).
			Writes(event).Returns(http.StatusOK, "OK", event))
	}
	add("/watch"+rs.collection, "watchlist", "watch"+rs.opScope+kind+"List",
		"watch individual changes to a list of "+kind+". deprecated: use the 'watch' parameter with a list operation instead.")
	add("/watch"+rs.item, "watch", "watch"+rs.opScope+kind,
		"watch changes to an object of kind "+kind+". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.")
	if s.namespaced {
		add("/watch/"+s.resource, "watchlist", "watch"+kind+"ListForAllNamespaces",
			"watch individual changes to a list of "+kind+". deprecated: use the 'watch' parameter with a list operation instead.")
	}
}

package endpoints

import (
	"errors"
	"net/http"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
)

// routeCacheSize bounds how many request shapes a Router remembers; when full it forgets
// them all and starts again.
const routeCacheSize = 4096

// Router is go-restful's CurlyRouter with a cache of the routes it selected: it answers a
// request with the same URL path, method, Content-Type and Accept header as one before (all
// that CurlyRouter's choice depends on) without matching the path against every route again.
// Selecting a route is about a tenth of the allocations of a small request. Only successful
// selections are remembered, and none from a web service with conditional routes
// (Route.If), whose choice depends on more of the request. The cache is dropped when the
// container's web services change. Safe for concurrent use; use one Router per container.
type Router struct {
	curly restful.CurlyRouter

	mu       sync.RWMutex
	services []*restful.WebService // the web services the cache was filled from
	routes   map[routeKey]selectedRoute
}

var _ restful.RouteSelector = (*Router)(nil)

// routeKey is what CurlyRouter's choice depends on.
type routeKey struct {
	path, method, contentType, accept string
}

// selectedRoute is one remembered choice.
type selectedRoute struct {
	service *restful.WebService
	route   *restful.Route
}

// NewRouter returns an empty Router.
func NewRouter() *Router { return &Router{} }

// SelectRoute implements restful.RouteSelector, as CurlyRouter.SelectRoute.
func (r *Router) SelectRoute(services []*restful.WebService, req *http.Request) (*restful.WebService, *restful.Route, error) {
	key := routeKey{path: req.URL.Path, method: req.Method,
		contentType: req.Header.Get(restful.HEADER_ContentType), accept: req.Header.Get(restful.HEADER_Accept)}
	r.mu.RLock()
	hit, ok := r.routes[key]
	same := sameServices(r.services, services)
	r.mu.RUnlock()
	if ok && same {
		return hit.service, hit.route, nil
	}
	ws, route, err := r.curly.SelectRoute(services, req)
	if isNotAcceptable(err) && acceptsTypeWildcard(req.Header.Get(restful.HEADER_Accept)) {
		// CurlyRouter knows */* but not application/*: pick the route as for */*; the
		// handler's own negotiation reads the Accept header (application/* is JSON).
		anyType := req.Clone(req.Context())
		anyType.Header.Set(restful.HEADER_Accept, "*/*")
		ws, route, err = r.curly.SelectRoute(services, anyType)
	}
	if err != nil || conditional(ws) {
		return ws, route, err
	}
	r.mu.Lock()
	if !sameServices(r.services, services) || len(r.routes) >= routeCacheSize {
		r.services = append(r.services[:0], services...)
		r.routes = make(map[routeKey]selectedRoute, min(routeCacheSize, 64))
	}
	r.routes[key] = selectedRoute{service: ws, route: route}
	r.mu.Unlock()
	return ws, route, nil
}

// sameServices reports whether a and b hold the same web services in the same order.
func sameServices(a, b []*restful.WebService) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// conditional reports whether a route of ws has conditions on the request (Route.If).
func conditional(ws *restful.WebService) bool {
	for _, route := range ws.Routes() {
		if len(route.If) > 0 {
			return true
		}
	}
	return false
}

// isNotAcceptable reports whether err is go-restful's 406 for a request no route produces.
func isNotAcceptable(err error) bool {
	var se restful.ServiceError
	return errors.As(err, &se) && se.Code == http.StatusNotAcceptable
}

// acceptsTypeWildcard reports whether an Accept header has an "application/*" media range,
// which kube-apiserver answers with JSON.
func acceptsTypeWildcard(accept string) bool {
	for _, c := range parseAccept(accept) {
		if c.mediaType == "application/*" {
			return true
		}
	}
	return false
}

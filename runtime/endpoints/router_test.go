package endpoints

import (
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
)

// routerServices are two web services with parameters, a regexp, subresources and media
// types, as the installer writes them.
func routerServices() []*restful.WebService {
	noop := func(*restful.Request, *restful.Response) {}
	a := new(restful.WebService).Path("/apis/a/v1").Consumes("application/json", "application/yaml").Produces("application/json")
	a.Route(a.GET("/namespaces/{namespace}/things").To(noop).Operation("list"))
	a.Route(a.GET("/namespaces/{namespace}/things/{name}").To(noop).Operation("get"))
	a.Route(a.PUT("/namespaces/{namespace}/things/{name}").To(noop).Operation("replace"))
	a.Route(a.PUT("/namespaces/{namespace}/things/{name}/status").To(noop).Operation("replaceStatus"))
	a.Route(a.PATCH("/namespaces/{namespace}/things/{name}").Consumes("application/merge-patch+json").To(noop).Operation("patch"))
	a.Route(a.GET("/things/{path:*}").To(noop).Operation("wild"))
	a.Route(a.GET("/ids/{id:[0-9]+}").To(noop).Operation("id"))
	b := new(restful.WebService).Path("/apis/a").Produces("application/json")
	b.Route(b.GET("").To(noop).Operation("group"))
	return []*restful.WebService{a, b}
}

// routerRequests cover hits, each kind of miss and each error CurlyRouter returns.
var routerRequests = []struct{ method, path, contentType, accept string }{
	{"GET", "/apis/a/v1/namespaces/n/things", "", ""},
	{"GET", "/apis/a/v1/namespaces/n/things/x", "", "application/json"},
	{"GET", "/apis/a/v1/namespaces/n/things/x", "", "text/html"},
	{"PUT", "/apis/a/v1/namespaces/n/things/x", "application/json", ""},
	{"PUT", "/apis/a/v1/namespaces/n/things/x", "text/plain", ""},
	{"PUT", "/apis/a/v1/namespaces/n/things/x/status", "application/yaml", ""},
	{"PATCH", "/apis/a/v1/namespaces/n/things/x", "application/merge-patch+json", ""},
	{"DELETE", "/apis/a/v1/namespaces/n/things/x", "", ""},
	{"GET", "/apis/a/v1/things/deep/er/path", "", ""},
	{"GET", "/apis/a/v1/ids/42", "", ""},
	{"GET", "/apis/a/v1/ids/forty-two", "", ""},
	{"GET", "/apis/a", "", ""},
	{"GET", "/apis/b/v1/nothing", "", ""},
}

// choice is a route selection in comparable form.
type choice struct {
	service, operation string
	code               int
}

func choose(sel restful.RouteSelector, services []*restful.WebService, method, path, contentType, accept string) choice {
	req := httptest.NewRequest(method, path, nil)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	ws, route, err := sel.SelectRoute(services, req)
	var c choice
	if ws != nil {
		c.service = ws.RootPath()
	}
	if route != nil {
		c.operation = route.Operation
	}
	if se, ok := err.(restful.ServiceError); ok {
		c.code = se.Code
	}
	return c
}

// TestRouterChoosesAsCurlyRouter: on a miss and on a hit, Router chooses what CurlyRouter
// chooses, errors included.
func TestRouterChoosesAsCurlyRouter(t *testing.T) {
	services := routerServices()
	r := NewRouter()
	for round := range 2 {
		for _, rq := range routerRequests {
			want := choose(restful.CurlyRouter{}, services, rq.method, rq.path, rq.contentType, rq.accept)
			if got := choose(r, services, rq.method, rq.path, rq.contentType, rq.accept); got != want {
				t.Errorf("round %d: %s %s (%q, %q): Router chose %+v, CurlyRouter %+v", round, rq.method, rq.path, rq.contentType, rq.accept, got, want)
			}
		}
	}
	if len(r.routes) == 0 {
		t.Fatal("Router remembered nothing")
	}
}

// TestRouterForgetsWhenServicesChange: a new web service that serves a remembered path
// better takes it at once.
func TestRouterForgetsWhenServicesChange(t *testing.T) {
	services := routerServices()
	r := NewRouter()
	if got := choose(r, services, "GET", "/apis/a/v1/things/x", "", ""); got.operation != "wild" {
		t.Fatalf("chose %+v", got)
	}
	noop := func(*restful.Request, *restful.Response) {}
	c := new(restful.WebService).Path("/apis/a/v1/things")
	c.Route(c.GET("/{name}").To(noop).Operation("narrower"))
	services = append(services, c)
	want := choose(restful.CurlyRouter{}, services, "GET", "/apis/a/v1/things/x", "", "")
	if got := choose(r, services, "GET", "/apis/a/v1/things/x", "", ""); got != want || want.operation != "narrower" {
		t.Errorf("after adding a web service: Router chose %+v, CurlyRouter %+v", got, want)
	}
}

// TestRouterDoesNotRememberConditionalRoutes: a route whose If depends on more of the
// request than the cache key is chosen afresh every time.
func TestRouterDoesNotRememberConditionalRoutes(t *testing.T) {
	noop := func(*restful.Request, *restful.Response) {}
	ws := new(restful.WebService).Path("/x")
	ws.Route(ws.GET("").If(func(req *http.Request) bool { return req.Header.Get("X-Pick") == "a" }).To(noop).Operation("a"))
	ws.Route(ws.GET("").To(noop).Operation("b"))
	services := []*restful.WebService{ws}
	r := NewRouter()
	for _, pick := range []string{"a", "b", "a"} {
		req := httptest.NewRequest("GET", "/x", nil)
		req.Header.Set("X-Pick", pick)
		_, route, err := r.SelectRoute(services, req)
		if err != nil || route.Operation != pick {
			t.Errorf("X-Pick %s: chose %v, %v", pick, route, err)
		}
	}
}

package endpoints

import (
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
)

// BenchmarkSelectRoute compares Router with go-restful's CurlyRouter on a GET of one object:
// `go test -bench SelectRoute ./runtime/endpoints`.
func BenchmarkSelectRoute(b *testing.B) {
	services := routerServices()
	req := httptest.NewRequest("GET", "/apis/a/v1/namespaces/n/things/x", nil)
	req.Header.Set("Accept", "application/json")
	for name, sel := range map[string]restful.RouteSelector{"CurlyRouter": restful.CurlyRouter{}, "Router": NewRouter()} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := sel.SelectRoute(services, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package endpoints_test

import (
	"testing"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestRoutesShareTheirParameters installs the test group and checks that the routes
// document each query parameter, and the namespace path parameter, with one shared
// restful.Parameter (a copy per route was most of a route's memory), and {name} with one per
// resource path and version; every route still documents pretty.
func TestRoutesShareTheirParameters(t *testing.T) {
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	client, _ := etcdtest.Run(t)
	stores, err := install.NewStores(scheme, &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	container := restful.NewContainer()
	if _, err := endpoints.InstallAPIGroup(container, install.NewAPIGroupInfo(scheme, stores)); err != nil {
		t.Fatal(err)
	}
	params := map[string]map[*restful.Parameter]bool{} // "query pretty", "path name ..." -> the distinct parameters
	routes, uses := 0, 0                               // uses: of {name}
	for _, ws := range container.RegisteredWebServices() {
		for _, r := range ws.Routes() {
			routes++
			pretty := false
			for _, p := range r.ParameterDocs {
				d := p.Data()
				if d.Kind == restful.BodyParameterKind { // go-restful's own, from Reads
					continue
				}
				k := d.Name
				if d.Name == "name" {
					k = "name"
					uses++
				}
				if params[k] == nil {
					params[k] = map[*restful.Parameter]bool{}
				}
				params[k][p] = true
				pretty = pretty || d.Name == "pretty"
			}
			if !pretty {
				t.Errorf("%s %s does not document pretty", r.Method, r.Path)
			}
		}
	}
	if routes < 20 || len(params["limit"]) == 0 || len(params["dryRun"]) == 0 || len(params["namespace"]) == 0 {
		t.Fatalf("%d routes documenting %d parameters, want the test group's (limit, dryRun, namespace, ...)", routes, len(params))
	}
	for k, ps := range params {
		switch k {
		case "name": // one per resource path and version: the doc names the kind
			if len(ps) > 8 || len(ps)*2 > uses {
				t.Errorf("{name}: %d copies across the %d routes that document it, want one per resource path and version", len(ps), uses)
			}
		case "dryRun": // the writes' and the deletes'
			if len(ps) != 2 {
				t.Errorf("dryRun: %d copies across %d routes, want two", len(ps), routes)
			}
		default:
			if len(ps) != 1 {
				t.Errorf("parameter %q: %d copies across %d routes, want one shared", k, len(ps), routes)
			}
		}
	}
}

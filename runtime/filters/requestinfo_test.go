package filters

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apigen-dev/apigen/runtime/request"
)

// TestWithRequestInfo checks that the filter leaves the parsed RequestInfo in the context,
// where request.InfoFor finds it, and none for a path that does not parse.
func TestWithRequestInfo(t *testing.T) {
	var got *request.RequestInfo
	var ok bool
	h := WithRequestInfo(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got, ok = request.RequestInfoFrom(r.Context())
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodDelete, "/apis/db.example.com/v1/namespaces/a/databases/main", nil))
	if !ok || got.Verb != "delete" || got.Namespace != "a" || got.Name != "main" || got.Resource != "databases" {
		t.Errorf("info %+v %v", got, ok)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.URL.Path = "/apis/g/v1/namespaces//x"
	h.ServeHTTP(httptest.NewRecorder(), r)
	if ok {
		t.Errorf("a path that does not parse got info %+v", got)
	}
}

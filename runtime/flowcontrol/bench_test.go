package flowcontrol

import (
	"net/http"
	"net/http/httptest"
	"testing"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
	"github.com/apigen-dev/apigen/runtime/request"
)

// BenchmarkHandler measures the filter's cost per request under kube's default
// configuration (600 seats): classification through every FlowSchema, the seat taken and
// given back, the headers; for an authenticated user (global-default, queued level) and for
// system:masters (exempt).
func BenchmarkHandler(b *testing.B) {
	for _, tc := range []struct {
		name string
		user *request.User
	}{
		{"global-default", &request.User{Name: "alice", Groups: []string{"system:authenticated"}}},
		{"exempt", &request.User{Name: "admin", Groups: []string{"system:masters", "system:authenticated"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := New(600, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			cfg, err := digest(append(append([]*flowcontrolv1.FlowSchema{}, mandatorySchemas...), suggestedSchemas...),
				append(append([]*flowcontrolv1.PriorityLevelConfiguration{}, mandatoryLevels...), suggestedLevels...), 600, nil)
			if err != nil {
				b.Fatal(err)
			}
			c.cfg.Store(&versioned{cfg: cfg})
			h := c.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps/x", nil)
			ctx := request.WithUser(r.Context(), tc.user)
			ctx = request.WithRequestInfo(ctx, &request.RequestInfo{IsResourceRequest: true, Verb: "get", APIVersion: "v1",
				Resource: "configmaps", Namespace: "default", Name: "x"})
			r = r.WithContext(ctx)
			b.RunParallel(func(pb *testing.PB) {
				w := httptest.NewRecorder()
				for pb.Next() {
					h.ServeHTTP(w, r)
				}
			})
		})
	}
}

package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestWithMetrics(t *testing.T) {
	m := New()
	h := m.WithMetrics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write([]byte("{}"))
	}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const dbs = "/apis/db.example.com/v1/namespaces/team-a/databases"
	for _, req := range []struct{ method, path, contentType string }{
		{"GET", dbs, ""},
		{"GET", dbs, ""},
		{"GET", dbs + "?watch=true", ""},
		{"GET", dbs + "/missing", ""},
		{"POST", dbs + "?dryRun=All", "application/json"},
		{"PATCH", dbs + "/main/status", "application/apply-patch+yaml"},
		{"DELETE", "/apis/db.example.com/v1/backups", ""},
		{"GET", "/healthz", ""},
		{"GET", "/readyz", ""},
		{"GET", "/readyz/etcd", ""},
		{"GET", "/version", ""},
		{"GET", "/openapi/v3/apis/db.example.com/v1", ""},
		{"GET", "/apis", ""},
		{"GET", "/apis/db.example.com/v1", ""},
		{"GET", "/", ""},
	} {
		r, _ := http.NewRequest(req.method, srv.URL+req.path, strings.NewReader("{}"))
		if req.contentType != "" {
			r.Header.Set("Content-Type", req.contentType)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	m.ObserveEtcd("create", "databases.db.example.com", 3*time.Millisecond)
	m.AddWatchers(schema.GroupVersionKind{Group: "db.example.com", Version: "v1", Kind: "Database"}, 1)
	m.SetStorageObjects("databases.db.example.com", 42)

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="db.example.com",resource="databases",scope="namespace",subresource="",verb="LIST",version="v1"} 2`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="db.example.com",resource="databases",scope="namespace",subresource="",verb="WATCH",version="v1"} 1`,
		`apiserver_request_total{code="404",component="apiserver",dry_run="",group="db.example.com",resource="databases",scope="resource",subresource="",verb="GET",version="v1"} 1`,
		`apiserver_request_total{code="201",component="apiserver",dry_run="All",group="db.example.com",resource="databases",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="db.example.com",resource="databases",scope="resource",subresource="status",verb="APPLY",version="v1"} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="db.example.com",resource="backups",scope="cluster",subresource="",verb="DELETE",version="v1"} 1`,
		`apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="db.example.com",resource="databases",scope="namespace",subresource="",verb="LIST",version="v1"} 2`,
		`etcd_request_duration_seconds_count{operation="create",type="databases.db.example.com"} 1`,
		`apiserver_registered_watchers{group="db.example.com",kind="Database",version="v1"} 1`,
		`apiserver_storage_objects{resource="databases.db.example.com"} 42`,
		`go_goroutines `,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/version",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/openapi/v3",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/apis",verb="GET",version=""} 2`,
		`apiserver_request_duration_seconds_count{component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(string(body), `verb="WATCH"`) && strings.Contains(string(body), `apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="db.example.com",resource="databases",scope="namespace",subresource="",verb="WATCH"`) {
		t.Error("a watch was timed")
	}
	if strings.Contains(string(body), `subresource="/readyz/etcd"`) || strings.Contains(string(body), `subresource="/"`) {
		t.Error("a non-resource request of an uncounted path was counted")
	}
	if problems, err := testutil.GatherAndLint(m.Registry); err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
}

package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/auth"
)

func TestParseBackend(t *testing.T) {
	b, err := ParseBackend("test.apigen.dev/v1=https://127.0.0.1:8443")
	if err != nil || b.Name() != "v1.test.apigen.dev" || b.URL.Host != "127.0.0.1:8443" {
		t.Errorf("%+v %v", b, err)
	}
	for _, bad := range []string{"test.apigen.dev=https://x", "/v1=https://x", "g/v1=http://x", "g/v1", "g/v1=https://"} {
		if _, err := ParseBackend(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestProxyIdentity checks what a backend receives: the authenticated caller in front-proxy
// headers, never the client's own identity headers or credentials.
func TestProxyIdentity(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.URL.Path != "/apis/g.example.com/v1" { // not the availability check
			got = r.Header.Clone()
		}
		mu.Unlock()
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(backend.Close)
	u, _ := url.Parse(backend.URL)
	b := Backend{URL: u}
	b.GroupVersion.Group, b.GroupVersion.Version = "g.example.com", "v1"
	a, err := New(Config{Backends: []Backend{b}, Transport: backend.Client().Transport, CheckInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go a.Run(ctx)
	for i := 0; ; i++ {
		if ok, _ := a.Available(b.GroupVersion); ok {
			break
		}
		if i > 200 {
			t.Fatal("backend never available")
		}
		time.Sleep(10 * time.Millisecond)
	}
	req := httptest.NewRequest(http.MethodGet, "/apis/g.example.com/v1/things", nil)
	req.Header.Set("Authorization", "Bearer secret")
	req.Header.Set("X-Remote-User", "mallory")
	req.Header.Set("X-Remote-Extra-Scopes", "all")
	req = req.WithContext(auth.WithUser(req.Context(), &auth.User{Name: "alice", Groups: []string{"devs", "ops"}, Extra: map[string][]string{"acme.com/team": {"a"}}}))
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("proxied: %d %s", rec.Code, rec.Body)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Get("Authorization") != "" || got.Get("X-Remote-User") != "alice" || strings.Join(got.Values("X-Remote-Group"), ",") != "devs,ops" ||
		got.Get("X-Remote-Extra-Scopes") != "" || got.Get("X-Remote-Extra-Acme.com%2Fteam") != "a" {
		t.Errorf("backend saw headers %v", got)
	}
	// A version no backend serves is 404; the group document lists v1.
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/apis/g.example.com/v2/things", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown version: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/apis/g.example.com", nil))
	if !strings.Contains(rec.Body.String(), `"groupVersion":"g.example.com/v1"`) {
		t.Errorf("group document: %s", rec.Body)
	}
}

package server

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeProxy proxies the groups it is given (answering "proxied <path>") and hands every other
// request to next.
type fakeProxy struct {
	next   http.Handler
	mu     sync.Mutex
	groups []metav1.APIGroup
}

func (p *fakeProxy) APIGroups() []metav1.APIGroup {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]metav1.APIGroup{}, p.groups...)
}

func (p *fakeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, g := range p.APIGroups() {
		if strings.HasPrefix(r.URL.Path, "/apis/"+g.Name+"/") {
			_, _ = w.Write([]byte("proxied " + r.URL.Path))
			return
		}
	}
	p.next.ServeHTTP(w, r)
}

// TestSetProxyHandler checks the first link's dynamic proxied groups: listed in /apis after
// the chain's own as they come and go, their requests sent to the handler, every other
// request on to the delegate; a second handler is refused.
func TestSetProxyHandler(t *testing.T) {
	back := New(Config{InstallAPIGroup: fakeInstaller}, nil)
	if err := back.InstallAPIGroups(fakeGroup()); err != nil {
		t.Fatal(err)
	}
	front := New(Config{}, back)
	proxy := &fakeProxy{next: back.UnprotectedHandler()}
	if err := front.SetProxyHandler(proxy); err != nil {
		t.Fatal(err)
	}
	if err := front.SetProxyHandler(proxy); err == nil {
		t.Error("a second proxy handler was accepted")
	}
	url, _ := serve(t, front)
	if _, body, _ := get(t, url+"/apis"); strings.Contains(body, "proxied.example.com") || !strings.Contains(body, `"name":"test.apigen.dev"`) {
		t.Errorf("/apis before the proxied group: %s", body)
	}
	proxy.mu.Lock()
	proxy.groups = []metav1.APIGroup{{Name: "proxied.example.com", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "proxied.example.com/v1", Version: "v1"}}}}
	proxy.mu.Unlock()
	if _, body, _ := get(t, url+"/apis"); !strings.Contains(body, `"name":"test.apigen.dev"`) || !strings.Contains(body, `"name":"proxied.example.com"`) {
		t.Errorf("/apis with the proxied group: %s", body)
	}
	if code, body, _ := get(t, url+"/apis/proxied.example.com/v1/things"); code != http.StatusOK || body != "proxied /apis/proxied.example.com/v1/things" {
		t.Errorf("proxied request: %d %s", code, body)
	}
	if code, body, _ := get(t, url+"/apis/test.apigen.dev"); code != http.StatusOK || !strings.Contains(body, `"kind":"APIGroup"`) {
		t.Errorf("the delegate's group through the proxy handler: %d %s", code, body)
	}
	if code, _, _ := get(t, url+"/apis/unknown.example.com/v1"); code != http.StatusNotFound {
		t.Errorf("unknown group: %d", code)
	}
	if err := New(Config{}, nil).SetProxyHandler(proxy); err != nil {
		t.Errorf("a fresh server: %v", err)
	}
}

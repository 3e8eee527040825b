package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/runtime/server"
)

// TestRunHTTP2 checks that the secure server speaks HTTP/2 as kube-apiserver does: curl
// --http2 and client-go negotiate it; a watch and 99 concurrent GETs of one client share one
// connection (100 streams, kube-apiserver's default limit: one more and Go's client may dial
// a second connection); and the request deadline holds for a stream: a body sent too slowly is cut with
// 504 at --request-timeout.
func TestRunHTTP2(t *testing.T) {
	url, kubeconfig := startArgs(t, []string{"--plain-http=false", "--request-timeout=5s"}, testGroup)
	pki := filepath.Join(filepath.Dir(kubeconfig), "pki")

	curl := exec.Command("curl", "--silent", "--show-error", "--http2", "--output", "/dev/null", "--write-out", "%{http_version} %{http_code}",
		"--cacert", filepath.Join(pki, "ca.crt"), "--cert", filepath.Join(pki, "admin.crt"), "--key", filepath.Join(pki, "admin.key"), url+"/version")
	if out, err := curl.CombinedOutput(); err != nil || string(out) != "2 200" {
		t.Errorf("curl --http2: %v %q, want HTTP version 2, code 200", err, out)
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	conns := map[string]bool{}
	protos := map[string]bool{}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		mu.Lock()
		conns[info.Conn.LocalAddr().String()] = true
		mu.Unlock()
	}}
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(context.Background(), trace), 30*time.Second)
	defer cancel()
	get := func(path string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err == nil {
			mu.Lock()
			protos[resp.Proto] = true
			mu.Unlock()
		}
		return resp, err
	}
	// Warm the connection up, so that the concurrent requests find it rather than each dialing.
	resp, err := get("/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	watch, err := get("/apis/test.apigen.dev/v1/namespaces/default/widgets?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	var wg sync.WaitGroup
	for range server.DefaultHTTP2MaxStreamsPerConnection - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := get("/apis/test.apigen.dev/v1/namespaces/default/widgets")
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET during the watch: %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	if len(protos) != 1 || !protos["HTTP/2.0"] || len(conns) != 1 {
		t.Errorf("client-go used protocols %v over %d connections; want HTTP/2.0 over one", protos, len(conns))
	}

	// A stream whose body comes too slowly is cut at the request timeout.
	body, feed := io.Pipe()
	defer feed.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/apis/test.apigen.dev/v1/namespaces/default/widgets", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	go func() { _, _ = feed.Write([]byte("{")) }() // then nothing more
	start := time.Now()
	resp, err = client.Do(req)
	if err != nil {
		t.Fatalf("slow upload over HTTP/2: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Proto != "HTTP/2.0" || resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(data), `"reason":"Timeout"`) {
		t.Errorf("slow upload over %s: %d %s; want 504 Timeout", resp.Proto, resp.StatusCode, data)
	}
	t.Logf("slow HTTP/2 upload answered after %v", time.Since(start))
}

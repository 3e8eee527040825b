package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

func TestDelegation(t *testing.T) {
	tail := New(Config{Name: "tail"}, nil)
	ws := new(restful.WebService).Path("/apis/other.example.com")
	ws.Route(ws.GET("/v1/things").To(func(_ *restful.Request, resp *restful.Response) {
		_, _ = resp.Write([]byte("from the delegate"))
	}))
	tail.Container().Add(ws)
	head := New(Config{Name: "head", InstallAPIGroup: fakeInstaller}, tail)
	if err := head.InstallAPIGroups(fakeGroup()); err != nil {
		t.Fatal(err)
	}
	base, _ := serve(t, head)

	if code, body, _ := get(t, base+"/apis/test.apigen.dev/v1/widgets"); code != http.StatusOK || !strings.Contains(body, "WidgetList") && !strings.Contains(body, "{") {
		t.Errorf("head's route: %d %q", code, body)
	}
	if code, body, _ := get(t, base+"/apis/other.example.com/v1/things"); code != http.StatusOK || body != "from the delegate" {
		t.Errorf("delegate's route: %d %q, want 200 from the delegate", code, body)
	}
	for _, path := range []string{"/apis/nothing.example.com/v1/x", "/nowhere", "/apis/test.apigen.dev/v9"} {
		code, body, h := get(t, base+path)
		var status metav1.Status
		if err := json.Unmarshal([]byte(body), &status); err != nil {
			t.Fatalf("%s: body %q is not a Status: %v", path, body, err)
		}
		if code != http.StatusNotFound || status.Kind != "Status" || status.Reason != metav1.StatusReasonNotFound ||
			status.Message != "the server could not find the requested resource" || h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s %+v, want a 404 NotFound Status", path, code, h.Get("Content-Type"), status)
		}
	}
}

func TestHealthEndpoints(t *testing.T) {
	healthy := true
	s := New(Config{Name: "health"}, nil)
	if err := s.AddHealthChecks(NamedCheck("flaky", func(*http.Request) error {
		if healthy {
			return nil
		}
		return errBroken
	})); err != nil {
		t.Fatal(err)
	}
	base, _ := serve(t, s)
	for _, path := range []string{"/healthz", "/livez", "/readyz"} {
		if code, body, _ := get(t, base+path); code != http.StatusOK || body != "ok" {
			t.Errorf("%s: %d %q, want 200 ok", path, code, body)
		}
	}
	code, body, _ := get(t, base+"/readyz?verbose")
	for _, want := range []string{"[+]ping ok\n", "[+]flaky ok\n", "[+]shutdown ok\n", "readyz check passed"} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("/readyz?verbose: %d %q, want 200 with %q", code, body, want)
		}
	}
	healthy = false
	code, body, _ = get(t, base+"/healthz")
	if code != http.StatusInternalServerError || !strings.Contains(body, "[-]flaky failed: reason withheld") || !strings.Contains(body, "healthz check failed") {
		t.Errorf("/healthz with a failing check: %d %q", code, body)
	}
	if code, body, _ := get(t, base+"/readyz/flaky"); code != http.StatusInternalServerError || !strings.Contains(body, "broken") {
		t.Errorf("/readyz/flaky: %d %q, want 500 with the reason", code, body)
	}
	if code, _, _ := get(t, base+"/readyz?exclude=flaky"); code != http.StatusOK {
		t.Errorf("/readyz?exclude=flaky: %d, want 200", code)
	}
	if code, body, _ := get(t, base+"/readyz/ping"); code != http.StatusOK || body != "ok" {
		t.Errorf("/readyz/ping: %d %q", code, body)
	}
}

func TestPostStartHooksGateReadiness(t *testing.T) {
	tail := New(Config{Name: "tail"}, nil)
	release := make(chan struct{})
	if err := tail.AddPostStartHook("slow", func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}); err != nil {
		t.Fatal(err)
	}
	head := New(Config{Name: "head"}, tail)
	if err := head.AddPostStartHook("slow", func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := head.PrepareRun(); err == nil {
		t.Fatal("PrepareRun accepted a hook name registered twice in the chain")
	}

	head = New(Config{Name: "head"}, tail)
	base, p := serve(t, head)
	code, body, _ := get(t, base+"/readyz?verbose")
	if code != http.StatusInternalServerError || !strings.Contains(body, "[-]poststarthook/slow failed") {
		t.Errorf("/readyz before the delegate's hook finished: %d %q", code, body)
	}
	close(release)
	select {
	case <-p.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("Ready not closed after the hook returned")
	}
	if code, body, _ := get(t, base+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after the hook finished: %d %q", code, body)
	}
}

func TestVersion(t *testing.T) {
	base, _ := serve(t, New(Config{Name: "v"}, nil))
	code, body, _ := get(t, base+"/version")
	var info apimachineryversion.Info
	if err := json.Unmarshal([]byte(body), &info); code != http.StatusOK || err != nil {
		t.Fatalf("/version: %d %q %v", code, body, err)
	}
	if _, err := utilversion.ParseSemantic(info.GitVersion); err != nil {
		t.Errorf("gitVersion %q: %v", info.GitVersion, err)
	}
}

func TestPanicRecovery(t *testing.T) {
	s := New(Config{Name: "p"}, nil)
	ws := new(restful.WebService).Path("/apis/panic.example.com")
	ws.Route(ws.GET("/").To(func(*restful.Request, *restful.Response) { panic("boom") }))
	s.Container().Add(ws)
	base, _ := serve(t, s)
	code, body, _ := get(t, base+"/apis/panic.example.com")
	var status metav1.Status
	if err := json.Unmarshal([]byte(body), &status); err != nil || code != http.StatusInternalServerError || status.Reason != metav1.StatusReasonInternalError {
		t.Errorf("panicking handler: %d %q, want a 500 InternalError Status", code, body)
	}
}

func TestShutdownEndsWatches(t *testing.T) {
	s := New(Config{Name: "w", ShutdownTimeout: 20 * time.Second}, nil)
	started := make(chan struct{})
	ws := new(restful.WebService).Path("/apis/watch.example.com")
	ws.Route(ws.GET("/v1/things").To(func(req *restful.Request, resp *restful.Response) {
		resp.WriteHeader(http.StatusOK)
		resp.Flush()
		close(started)
		<-req.Request.Context().Done()
	}))
	s.Container().Add(ws)
	p, err := s.PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/apis/watch.example.com/v1/things?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	<-started
	start := time.Now()
	cancel()
	waitServed(t, done, 10*time.Second, "shutdown waited for the watch")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %s with an open watch", d)
	}
}

func TestFailingPostStartHookStopsServer(t *testing.T) {
	s := New(Config{Name: "h"}, nil)
	if err := s.AddPostStartHook("broken", func(context.Context) error { return errBroken }); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPostStartHook("broken", func(context.Context) error { return nil }); err == nil {
		t.Error("AddPostStartHook accepted a duplicate name")
	}
	p, err := s.PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPostStartHook("late", func(context.Context) error { return nil }); err == nil {
		t.Error("AddPostStartHook accepted a hook after PrepareRun")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = p.Run(ctx, "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), `post-start hook "broken"`) || ctx.Err() != nil {
		t.Errorf("Run with a failing hook = %v, want the hook's error before the deadline", err)
	}
}

func TestCheckAndHookNames(t *testing.T) {
	s := New(Config{Name: "n"}, nil)
	ok := func(*http.Request) error { return nil }
	for _, name := range []string{"", "ping", "shutdown", "poststarthook/x", "bad name", "{x}"} {
		if err := s.AddHealthChecks(NamedCheck(name, ok)); err == nil {
			t.Errorf("AddHealthChecks accepted %q", name)
		}
	}
	if err := s.AddHealthChecks(NamedCheck("etcd", ok), NamedCheck("informer-sync/widgets", ok)); err != nil {
		t.Errorf("AddHealthChecks: %v", err)
	}
	if err := s.AddHealthChecks(NamedCheck("etcd", ok)); err == nil {
		t.Error("AddHealthChecks accepted a duplicate")
	}
	if err := s.AddPostStartHook("a b", func(context.Context) error { return nil }); err == nil {
		t.Error("AddPostStartHook accepted an invalid name")
	}
	if _, err := s.PrepareRun(); err != nil {
		t.Errorf("PrepareRun: %v", err)
	}
	if _, err := s.PrepareRun(); err == nil {
		t.Error("PrepareRun succeeded twice")
	}
}

func TestMethodNotAllowedStatus(t *testing.T) {
	s := New(Config{Name: "m", InstallAPIGroup: fakeInstaller}, nil)
	if err := s.InstallAPIGroups(fakeGroup()); err != nil {
		t.Fatal(err)
	}
	base, _ := serve(t, s)
	resp, err := http.Post(base+"/apis/test.apigen.dev/v1/widgets", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status metav1.Status
	if err := json.NewDecoder(resp.Body).Decode(&status); err != nil || resp.StatusCode != http.StatusMethodNotAllowed ||
		status.Reason != metav1.StatusReasonMethodNotAllowed {
		t.Errorf("POST to a list-only route: %d %+v %v, want a 405 MethodNotAllowed Status", resp.StatusCode, status, err)
	}
}

// TestShutdownDelay checks kube-apiserver's --shutdown-delay-duration semantics: once shutdown
// begins /readyz fails at once, while new connections and watches are still served until the
// delay ends; then the listener closes and Serve returns.
func TestShutdownDelay(t *testing.T) {
	const delay = 5 * time.Second
	s := New(Config{Name: "d", ShutdownDelayDuration: delay, ShutdownTimeout: 20 * time.Second}, nil)
	watchEnded := make(chan struct{})
	ws := new(restful.WebService).Path("/apis/watch.example.com")
	ws.Route(ws.GET("/v1/things").To(func(req *restful.Request, resp *restful.Response) {
		resp.WriteHeader(http.StatusOK)
		resp.Flush()
		<-req.Request.Context().Done()
		close(watchEnded)
	}))
	s.Container().Add(ws)
	p, err := s.PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	select {
	case <-p.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("server not ready")
	}
	resp, err := http.Get(base + "/apis/watch.example.com/v1/things?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })

	cancel()
	// A fresh connection for each request: the delay must keep the listener open.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	code := 0
	for range 100 {
		r, err := fresh.Get(base + "/readyz")
		if err != nil {
			t.Fatalf("/readyz during the shutdown delay: %v", err)
		}
		r.Body.Close()
		if code = r.StatusCode; code != http.StatusOK {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != http.StatusInternalServerError { // a failed check, as k8s.io/apiserver's healthz
		t.Fatalf("/readyz after shutdown began: %d, want 500", code)
	}
	r, err := fresh.Get(base + "/version")
	if err != nil {
		t.Fatalf("new connection during the shutdown delay: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("/version during the shutdown delay: %d", r.StatusCode)
	}
	select {
	case <-watchEnded:
		t.Error("the watch ended before the shutdown delay did")
	case err := <-done:
		t.Fatalf("Serve returned before the shutdown delay ended: %v", err)
	default:
	}
	waitServed(t, done, delay+20*time.Second, "Serve did not return after the shutdown delay")
	<-watchEnded
	if _, err := fresh.Get(base + "/version"); err == nil {
		t.Error("the server still accepts connections after shutdown")
	}
}

// TestMetrics checks that /metrics serves the Prometheus text format and that the handler
// chain counts resource requests with kube-apiserver's labels.
func TestMetrics(t *testing.T) {
	base, _ := serve(t, New(Config{Name: "m"}, nil))
	get(t, base+"/apis/nothing.example.com/v1/namespaces/a/things")
	code, body, header := get(t, base+"/metrics")
	if code != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", code, header.Get("Content-Type"))
	}
	want := `apiserver_request_total{code="404",component="apiserver",dry_run="",group="nothing.example.com",resource="things",scope="namespace",subresource="",verb="LIST",version="v1"} 1`
	if !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %s", want)
	}
}

// TestProfiling: /debug/pprof/ is served only with Config.Profiling, as kube-apiserver's
// --profiling.
func TestProfiling(t *testing.T) {
	base, _ := serve(t, New(Config{Name: "p", Profiling: true}, nil))
	if code, body, _ := get(t, base+"/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ with Profiling: %d %.200s", code, body)
	}
	if code, body, _ := get(t, base+"/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Errorf("/debug/pprof/heap with Profiling: %d %.200s", code, body)
	}
	base, _ = serve(t, New(Config{Name: "q"}, nil))
	if code, _, _ := get(t, base+"/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without Profiling: %d, want 404", code)
	}
}

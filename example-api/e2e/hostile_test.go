package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/example-api/bench"
)

// rawTLS opens a TLS connection to the server as the kubeconfig's admin, for a client that
// writes its request by hand (slowly) and reads its response when it likes (or never).
func rawTLS(t *testing.T, s *apiServer) *tls.Conn {
	t.Helper()
	cfg, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"http/1.1"}
	u, err := url.Parse(s.proc.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", u.Host, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// databasesRequester returns a function sending one request as the kubeconfig's admin to
// path under the default namespace's databases, returning the response and its whole body.
func (s *apiServer) databasesRequester(t *testing.T) func(method, path, contentType, body string) (*http.Response, []byte) {
	t.Helper()
	client, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	base := s.proc.URL + "/apis/db.example.com/v1/namespaces/default/databases"
	return func(method, path, contentType, body string) (*http.Response, []byte) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, data
	}
}

// rss is the server's resident set now and at its peak so far, in MiB.
func rss(t *testing.T, s *apiServer) (now, peak uint64) {
	t.Helper()
	m, err := bench.ReadMemStatus(s.proc.PID)
	if err != nil {
		t.Fatal(err)
	}
	return m.RSS >> 20, m.HWM >> 20
}

// TestHostileCopyBombPatch sends a JSON patch of 30 copy operations, each doubling the
// object (unbounded: 2^30 times it, tens of GiB): the server refuses it with 422 once the
// copies pass kube-apiserver's limit, quickly and with little memory; 10,001 operations are
// refused with kube's 413 before any is applied.
func TestHostileCopyBombPatch(t *testing.T) {
	s := startServer(t)
	do := s.databasesRequester(t)
	send := func(method, path, contentType, body string) (int, []byte, time.Duration) {
		start := time.Now()
		resp, data := do(method, path, contentType, body)
		return resp.StatusCode, data, time.Since(start)
	}
	if code, body, _ := send("POST", "", "application/json", database("bomb", "")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	// Warm the PATCH path up (route, decoders), so that what follows measures the bomb only.
	send("PATCH", "/bomb", "application/json-patch+json", `[{"op":"test","path":"/spec/engine","value":"postgres"}]`)
	copies := make([]string, 30)
	for i := range copies {
		copies[i] = fmt.Sprintf(`{"op":"copy","from":"/spec","path":"/spec/c%d"}`, i)
	}
	_, peakBefore := rss(t, s)
	code, body, took := send("PATCH", "/bomb", "application/json-patch+json", "["+strings.Join(copies, ",")+"]")
	_, peakAfter := rss(t, s)
	t.Logf("copy bomb: %d after %v; server peak RSS %d -> %d MiB", code, took, peakBefore, peakAfter)
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(body), "exceeding the limit 3145728") {
		t.Fatalf("copy bomb: %d %s; want 422 for the copy limit", code, body)
	}
	// Unbounded, the copies ask for gigabytes and seconds of CPU; json-patch's own limit (kube's
	// 3 MiB) still lets them marshal ~20 MiB over ~80 ms; the server's replay of the copies'
	// sizes refuses them before any copy (in-process: ~1 ms, ~130 KiB allocated). The time
	// bound is generous for a loaded machine.
	if peakAfter > peakBefore+10 || took > 2*time.Second {
		t.Errorf("copy bomb cost %v and %d MiB of peak RSS; want it refused before its copies", took, peakAfter-peakBefore)
	}
	ops := "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/spec/engine","value":"postgres"},`, 10001), ",") + "]"
	if code, body, _ := send("PATCH", "/bomb", "application/json-patch+json", ops); code != http.StatusRequestEntityTooLarge ||
		!strings.Contains(string(body), "The allowed maximum operations in a JSON patch is 10000, got 10001") {
		t.Errorf("10,001 operations: %d %s; want kube's 413", code, body)
	}
}

// TestHostileTimeouts: a create whose deadline has passed (?timeout=1ns) is either stored and
// acknowledged or reported as not stored, never stored silently (so a client retrying a
// generateName create makes no duplicate); a read whose deadline passes is 504 Timeout; a
// list at a resourceVersion etcd has not reached waits 3 s, then is 504 with cause
// ResourceVersionTooLarge and Retry-After.
func TestHostileTimeouts(t *testing.T) {
	s := startServer(t)
	send := s.databasesRequester(t)
	do := func(method, path, body string) (*http.Response, []byte) {
		return send(method, path, "application/json", body)
	}
	generated := strings.Replace(database("", ""), `"name":""`, `"generateName":"timed-"`, 1)
	acked := map[string]bool{}
	for range 20 {
		resp, body := do("POST", "?timeout=1ns", generated)
		switch resp.StatusCode {
		case http.StatusCreated:
			var obj metav1.PartialObjectMetadata
			if err := json.Unmarshal(body, &obj); err != nil {
				t.Fatal(err)
			}
			acked[obj.Name] = true
		case http.StatusGatewayTimeout:
			if !strings.Contains(string(body), `"reason":"Timeout"`) || resp.Header.Get("Retry-After") != "" {
				t.Errorf("timed-out create: %s (Retry-After %q); want a Timeout Status a client does not retry blindly", body, resp.Header.Get("Retry-After"))
			}
		default:
			t.Errorf("create with ?timeout=1ns: %d %s; want 201 or 504", resp.StatusCode, body)
		}
	}
	list, err := s.dynamic.Resource(databasesV1).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, item := range list.Items {
		if strings.HasPrefix(item.GetName(), "timed-") {
			stored++
			if !acked[item.GetName()] {
				t.Errorf("%s is stored but its create was answered with a timeout", item.GetName())
			}
		}
	}
	t.Logf("20 creates with ?timeout=1ns: %d acknowledged, %d stored", len(acked), stored)

	if resp, body := do("GET", "?timeout=1ns", ""); resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), "request did not complete within the allotted timeout") {
		t.Errorf("list with ?timeout=1ns: %d %s; want 504 Timeout", resp.StatusCode, body)
	}
	// Reads at resourceVersion "0" are served from the watch cache without asking etcd
	// anything: the deadline must bound them too.
	if resp, body := do("POST", "", database("rv0-deadline", "")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create rv0-deadline: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"?resourceVersion=0&timeout=1ns", "/rv0-deadline?resourceVersion=0&timeout=1ns"} {
		if resp, body := do("GET", path, ""); resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), "request did not complete within the allotted timeout") {
			t.Errorf("GET %s: %d %s; want 504 Timeout", path, resp.StatusCode, body)
		}
	}

	future := fmt.Sprint(mustAtoi(t, list.GetResourceVersion()) + 1000)
	start := time.Now()
	resp, body := do("GET", "?resourceVersion="+future+"&resourceVersionMatch=NotOlderThan", "")
	waited := time.Since(start)
	var st metav1.Status
	_ = json.Unmarshal(body, &st)
	if resp.StatusCode != http.StatusGatewayTimeout || resp.Header.Get("Retry-After") != "1" || st.Details == nil ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge || waited < 3*time.Second {
		t.Errorf("list at a future resourceVersion: %d after %v, Retry-After %q, %s; want 504 with cause ResourceVersionTooLarge after 3s",
			resp.StatusCode, waited, resp.Header.Get("Retry-After"), body)
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return n
}

// TestHostileSlowClients: with --request-timeout 2s, clients uploading at a byte a second
// and clients that never read a 7 MiB list hold every write and read slot; they are cut at
// the deadline (the uploaders get 504), so a writer and a reader of other clients, refused
// with 429 meanwhile, succeed within about 3 s, and the server's memory stays bounded (each
// non-reader holds one page of the list, not the list).
func TestHostileSlowClients(t *testing.T) {
	const timeout = 2 * time.Second
	const uploaders, nonReaders = 10, 50
	// The max-in-flight filter's slots: API Priority and Fairness (on by default, and
	// exempting the admin) is off, as kube-apiserver's max-in-flight tests turn it off.
	s := startServer(t, "--request-timeout="+timeout.String(), "--enable-priority-and-fairness=false",
		fmt.Sprintf("--max-mutating-requests-inflight=%d", uploaders), fmt.Sprintf("--max-requests-inflight=%d", nonReaders))
	dbs := s.unthrottled(t).Resource(databasesV1).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	createBlobs(ctx, t, dbs, "big", 700, 10<<10) // a 7 MiB collection
	mem, err := bench.StartMemSampler(s.proc.PID, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Stop()
	baseline, _ := rss(t, s)

	path := "/apis/db.example.com/v1/namespaces/default/databases"
	start := time.Now()
	cut := make(chan time.Duration, uploaders)
	for range uploaders {
		conn := rawTLS(t, s)
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 110\r\n\r\n{", path)
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err == nil && resp.StatusCode == http.StatusGatewayTimeout {
				cut <- time.Since(start)
				return
			}
			t.Errorf("slow uploader: %v, %v; want 504", resp, err)
			cut <- -1
		}()
		go func() { // a byte a second, while the connection lasts
			for range 30 {
				time.Sleep(time.Second)
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}()
	}
	for range nonReaders {
		fmt.Fprintf(rawTLS(t, s), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path) // and never read
	}
	// Other clients, polling every 50 ms until a slot is theirs (429 until then).
	do := s.databasesRequester(t)
	until := func(method, path, body string, want int) time.Duration {
		for time.Since(start) < 30*time.Second {
			resp, data := do(method, path, "application/json", body)
			if resp.StatusCode == want {
				return time.Since(start)
			}
			if resp.StatusCode != http.StatusTooManyRequests {
				t.Errorf("%s %s beside the slow clients: %d %s", method, path, resp.StatusCode, data)
				return time.Since(start)
			}
			time.Sleep(50 * time.Millisecond)
		}
		return time.Since(start)
	}
	written := make(chan time.Duration, 1)
	go func() { written <- until("POST", "", database("other-writer", ""), http.StatusCreated) }()
	read := until("GET", "/big-0000", "", http.StatusOK)
	wrote := <-written
	for range uploaders {
		if d := <-cut; d > 0 {
			if d > timeout+8*time.Second {
				t.Errorf("a slow uploader was cut after %v; want about the %v request timeout", d, timeout)
			}
		}
	}
	peak, _, _ := mem.Peak()
	t.Logf("slow clients: other writer served after %v, other reader after %v; server RSS %d MiB before, peak %d MiB",
		wrote.Round(time.Millisecond), read.Round(time.Millisecond), baseline, peak>>20)
	// Slots come back at the deadline and its write grace (2.5 s); the bound leaves room for
	// a machine loaded by other tests (CI runs packages side by side), and is still far below
	// the 30 s the hostile clients would hold them.
	if wrote > timeout+8*time.Second || read > timeout+8*time.Second {
		t.Errorf("other clients waited %v (write) and %v (read) for slots; want them free within about the %v timeout", wrote, read, timeout)
	}
	if peak > 300<<20 {
		t.Errorf("server peak RSS %d MiB with %d clients not reading a 7 MiB list; want under 300 MiB", peak>>20, nonReaders)
	}
}

// TestHostileWatchers: 300 watches of a collection whose clients read nothing keep the
// server's memory bounded: each watch reads its initial state a chunk at a time and holds at
// most its buffer of events (sharing the decoded objects), rather than a copy of the whole
// collection, so the bound does not grow with the collection (1,000 objects here, to keep the
// test short; the per-watch cost is the same at 3,000).
func TestHostileWatchers(t *testing.T) {
	const objects, watchers = 1000, 300
	s := startServer(t)
	dbs := s.unthrottled(t).Resource(databasesV1).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	createBlobs(ctx, t, dbs, "w", objects, 1<<10)
	mem, err := bench.StartMemSampler(s.proc.PID, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Stop()
	baseline, _ := rss(t, s)
	path := "/apis/db.example.com/v1/namespaces/default/databases?watch=true"
	for range watchers {
		fmt.Fprintf(rawTLS(t, s), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path) // and never read
	}
	// Give every watch time to send what its client's socket takes, and block.
	time.Sleep(5 * time.Second)
	if _, err := dbs.Get(ctx, "w-0000", metav1.GetOptions{}); err != nil {
		t.Errorf("a client beside %d stalled watches: %v", watchers, err)
	}
	peak, _, _ := mem.Peak()
	t.Logf("%d stalled watches of %d objects: server RSS %d MiB before, peak %d MiB", watchers, objects, baseline, peak>>20)
	if peak > 300<<20 {
		t.Errorf("server peak RSS %d MiB with %d stalled watches; want it bounded (under 300 MiB)", peak>>20, watchers)
	}
}

// createBlobs creates n Databases named <prefix>-0000... carrying an annotation of size bytes,
// eight at a time; it fails the test (t.Fatal) when one cannot be created.
func createBlobs(ctx context.Context, t *testing.T, dbs dynamic.ResourceInterface, prefix string, n, size int) {
	t.Helper()
	blob := strings.Repeat("x", size)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				obj := newDatabase("db.example.com/v1", fmt.Sprintf("%s-%04d", prefix, i), map[string]any{"engine": "postgres"})
				obj.SetAnnotations(map[string]string{"blob": blob})
				if _, err := dbs.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

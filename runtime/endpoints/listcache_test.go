package endpoints_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// newCachedServer serves the test group as newTestServer does, with its storage behind a
// watch cache (cacher.StorageFactory over etcd3's, as a server's --watch-cache), so lists
// and gets at a resourceVersion are served from memory.
func newCachedServer(tb testing.TB) *testServer {
	tb.Helper()
	client, _ := etcdtest.Run(tb)
	return serveOn(tb, client, true)
}

// serveOn serves the test group over HTTP on etcd's client, with its storage behind a watch
// cache when cached.
func serveOn(tb testing.TB, client *clientv3.Client, cached bool) *testServer {
	tb.Helper()
	return serveEdited(tb, client, cached, nil)
}

// serveEdited is serveOn with edit (when not nil) applied to the group before it is installed.
func serveEdited(tb testing.TB, client *clientv3.Client, cached bool, edit func(*registry.APIGroupInfo)) *testServer {
	tb.Helper()
	scheme, err := install.NewScheme()
	if err != nil {
		tb.Fatal(err)
	}
	var factory registry.StorageFactory = &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	if cached {
		f := &cacher.StorageFactory{Base: &etcd3.StorageFactory{Client: client, Prefix: "/registry"}}
		tb.Cleanup(f.Stop)
		factory = f
	}
	stores, err := install.NewStores(scheme, factory)
	if err != nil {
		tb.Fatal(err)
	}
	container := restful.NewContainer()
	container.Router(endpoints.NewRouter())
	container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	info := install.NewAPIGroupInfo(scheme, stores)
	if edit != nil {
		edit(info)
	}
	lists, err := endpoints.InstallAPIGroup(container, info)
	if err != nil {
		tb.Fatalf("InstallAPIGroup: %v", err)
	}
	ts := httptest.NewServer(container)
	tb.Cleanup(ts.Close)
	return &testServer{url: ts.URL, discovery: lists}
}

// createWidgets creates widgets w0000..w<n-1> in namespace ns of about 1 KiB of JSON each
// (an annotation pads them), as loadgen's objects.
func createWidgets(tb testing.TB, url string, n int) {
	tb.Helper()
	pad := strings.Repeat("x", 800)
	for i := range n {
		body := fmt.Sprintf(`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"w%04d","labels":{"app":"bench"},`+
			`"annotations":{"pad":%q}},"spec":{"size":%d,"color":"red"}}`, i, pad, i%100)
		resp, err := http.Post(url+widgets, "application/json", strings.NewReader(body))
		if err != nil {
			tb.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			tb.Fatalf("create w%04d: %d %s", i, resp.StatusCode, data)
		}
	}
}

// listPages lists widgets in pages of limit, as client-go's pager (gzip accepted when gz; the
// body is read as it comes, not decompressed), and returns the pages read. query is added
// to every page's query string.
func listPages(tb testing.TB, client *http.Client, url string, limit int, gz bool, query string) int {
	next, pages := "", 0
	for {
		q := fmt.Sprintf("?limit=%d%s", limit, query)
		if limit == 0 {
			q = "?" + query
		}
		if next != "" {
			q += "&continue=" + next
		}
		req, _ := http.NewRequest(http.MethodGet, url+widgets+q, nil)
		req.Header.Set("Accept", "application/json")
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := client.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			tb.Fatalf("list: %d %s", resp.StatusCode, data)
		}
		pages++
		if resp.Header.Get("Content-Encoding") == "gzip" {
			next = continueOfGzipped(tb, data) // decompresses only the head
		} else {
			next = continueOf(data)
		}
		if next == "" {
			return pages
		}
	}
}

// BenchmarkList lists the 1,000 widgets of a namespace (about 1 KiB each) in pages of 500
// over HTTP from a server with a watch cache, as loadgen's list: consistent lists
// (resourceVersion ""), gzip accepted (bodies over 128 KiB are gzipped). "repeat" lists the
// same pages every time (the page cache may answer); "fresh" adds a query parameter that
// differs on every op, so every page is assembled and compressed; "plain" does so without
// gzip; "churn" is "repeat" while another resource is written every 5ms (the list's
// revision moves on without its objects); "whole" lists all 1,000 without a limit (read in
// two pages of 500 and written as one list). allocs/op is the server's and the client's.
func BenchmarkList(b *testing.B) {
	s := newCachedServer(b)
	createWidgets(b, s.url, 1000)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: time.Minute}
	listPages(b, client, s.url, 500, true, "") // the cache has synced once this is served
	for _, c := range []struct {
		name  string
		gz    bool
		fresh bool
		churn bool
	}{{"repeat", true, false, false}, {"fresh", true, true, false}, {"plain", false, true, false}, {"churn", true, false, true}, {"whole", true, false, false}} {
		b.Run(c.name, func(b *testing.B) {
			if c.churn {
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						case <-time.After(5 * time.Millisecond):
						}
						body := fmt.Sprintf(`{"apiVersion":"test.apigen.dev/v1","kind":"Gadget","metadata":{"name":"g%d"}}`, i)
						resp, err := http.Post(s.url+"/apis/test.apigen.dev/v1/namespaces/ns/gadgets", "application/json", strings.NewReader(body))
						if err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}
				}()
				defer func() { close(stop); <-done }()
			}
			b.ReportAllocs()
			if c.name == "whole" {
				for b.Loop() {
					if got := listPages(b, client, s.url, 0, true, ""); got != 1 {
						b.Fatalf("%d responses, want 1", got)
					}
				}
				return
			}
			i := 0
			for b.Loop() {
				q := ""
				if c.fresh {
					i++
					q = fmt.Sprintf("&pretty=false&n=%d", i)
				}
				if got := listPages(b, client, s.url, 500, c.gz, q); got != 2 {
					b.Fatalf("%d pages, want 2", got)
				}
			}
		})
	}
}

// continueOfGzipped returns the continue token of a gzipped list page.
func continueOfGzipped(tb testing.TB, data []byte) string {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(zr, head)
	return continueOf(head[:n])
}

// continueOf returns the continue token of a JSON list page, which the list's metadata
// holds within its first 4 KiB; "" when it has none.
func continueOf(data []byte) string {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(head, []byte(`"continue":"`))
	if i < 0 {
		return ""
	}
	rest := head[i+len(`"continue":"`):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

// TestCachedListsMatchStorage: every list a server with a watch cache writes, whose items
// come from the cache's objects and, for JSON, from the items' cached encodings (spliced,
// and gzipped pages kept in the page cache), is byte for byte what a server without a cache
// on the same etcd writes: JSON whole and paged (first and continued pages), plain and
// gzipped, filtered by label and field, each with its Content-Length; at resourceVersion
// 0; YAML; a Table; a PartialObjectMetadataList. (The
// server serves no protobuf for its own kinds; a Table's Age cells, which tell the time of
// the request, are left out of the comparison.) Each is asked twice of the cached server,
// the second time from its caches.
func TestCachedListsMatchStorage(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	cached, plain := serveOn(t, client, true), serveOn(t, client, false)
	createWidgets(t, plain.url, 300)
	const (
		table   = "application/json;as=Table;v=v1;g=meta.k8s.io"
		partial = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	)
	type ask struct{ query, accept string }
	asks := []ask{
		{"", ""}, {"?limit=120", ""}, {"?labelSelector=app%3Dbench&limit=50", ""}, {"?fieldSelector=metadata.name%3Dw0007", ""},
		{"?limit=100", "application/yaml"}, {"?limit=100", table}, {"", table}, {"?limit=100", partial}, {"", partial},
	}
	// The continue token of the first page, read from the uncached server's JSON.
	_, first := getAs(t, plain, widgets+"?limit=120", "", false)
	var meta struct {
		Metadata struct{ Continue, ResourceVersion string }
	}
	if err := json.Unmarshal(first, &meta); err != nil || meta.Metadata.Continue == "" {
		t.Fatalf("first page: %v, continue %q", err, meta.Metadata.Continue)
	}
	asks = append(asks, ask{"?limit=120&continue=" + meta.Metadata.Continue, ""}, ask{"?limit=100&continue=" + meta.Metadata.Continue, table},
		// At "0" (any state), once the cache has caught up (the asks above waited for it):
		// an informer's first list. (Paged at "0", the cache ignores the limit, as kube's.)
		ask{"?resourceVersion=0", ""})
	for _, a := range asks {
		_, want := getAs(t, plain, widgets+a.query, a.accept, false)
		want = tableAge.ReplaceAll(want, []byte(`"AGE"],"object"`))
		for _, gz := range []bool{false, true, true} {
			resp, got := getAs(t, cached, widgets+a.query, a.accept, gz)
			got = tableAge.ReplaceAll(got, []byte(`"AGE"],"object"`))
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("GET %s (Accept %q, gzip %v) from the cache, %d bytes, differs from the uncached %d bytes at %d:\n%.300s\nwant\n%.300s",
					a.query, a.accept, gz, len(got), len(want), i, got[max(0, i-100):], want[max(0, i-100):])
			}
			// A JSON list's length is known before its first byte: no HTTP/1.1 chunks.
			if a.accept == "" && resp.ContentLength < 0 {
				t.Errorf("GET %s (gzip %v): no Content-Length", a.query, gz)
			}
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// tableAge matches the Age cell that ends a Table row, which depends on the time of the
// request rather than on the object.
var tableAge = regexp.MustCompile(`"[0-9]+[smhd]"\],"object"`)

// getAs sends GET path with Accept accept (none when "") and Accept-Encoding: gzip when gz,
// and returns the response and its body, decompressed; it fails the test unless 200.
func getAs(t *testing.T, s *testServer, path, accept string, gz bool) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw := &countingReader{r: resp.Body}
	var body io.Reader = raw
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(raw)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, data)
	}
	if raw.n != resp.ContentLength && resp.ContentLength >= 0 {
		t.Fatalf("GET %s: Content-Length %d, body of %d bytes", path, resp.ContentLength, raw.n)
	}
	return resp, data
}

// TestListWholeSplicedAndGzipped: a list without a limit that takes several pages (of 100
// here) is written with its items spliced from their cached encodings and, for a client that
// accepts gzip, gzipped past 128 KiB as any response; either way it is byte for byte the
// serializer's list read at once.
func TestListWholeSplicedAndGzipped(t *testing.T) {
	s := newCachedServer(t)
	createWidgets(t, s.url, 300) // about 300 KiB of JSON
	t.Cleanup(endpoints.SetListPageSize(100))
	restore := endpoints.SetListFromEncodings(false)
	_, want := getAs(t, s, widgets+"?limit=1000", "", false)
	restore()
	for _, gz := range []bool{false, true} {
		resp, got := getAs(t, s, widgets, "", gz)
		if !bytes.Equal(got, want) {
			t.Fatalf("unpaged list (gzip %v), %d bytes:\n%.300s\nwant %d bytes:\n%.300s", gz, len(got), got, len(want), want)
		}
		if zipped := resp.Header.Get("Content-Encoding") == "gzip"; zipped != gz {
			t.Errorf("unpaged list of %d bytes, gzip accepted %v: Content-Encoding %q", len(got), gz, resp.Header.Get("Content-Encoding"))
		}
	}
}

package endpoints_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

// openWatch starts a watch request and returns its response and a frame decoder.
func openWatch(t *testing.T, ctx context.Context, url, accept string) (*http.Response, *json.Decoder) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: status %d", resp.StatusCode)
	}
	return resp, json.NewDecoder(bufio.NewReader(resp.Body))
}

func TestWatchStream(t *testing.T) {
	s := newTestServer(t)
	var first v1.Widget
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("before", 1, "red")}, http.StatusCreated, &first)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, dec := openWatch(t, ctx, s.url+widgets+"?watch=true&resourceVersion="+first.ResourceVersion, "")
	if resp.Header.Get("Content-Type") != "application/json" || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
		t.Errorf("watch headers: %v %v", resp.Header, resp.TransferEncoding)
	}

	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("w", 1, "red")}, http.StatusCreated, nil)
	s.expect(t, request{method: "PATCH", path: widgets + "/w", contentType: "application/merge-patch+json", body: `{"spec":{"size":2}}`},
		http.StatusOK, nil)
	s.expect(t, request{method: "DELETE", path: widgets + "/w"}, http.StatusOK, nil)
	for _, want := range []struct {
		typ  string
		size int32
	}{{"ADDED", 1}, {"MODIFIED", 2}, {"DELETED", 2}} {
		var ev metav1.WatchEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("reading the %s frame: %v", want.typ, err)
		}
		var w v1.Widget
		if err := json.Unmarshal(ev.Object.Raw, &w); err != nil {
			t.Fatal(err)
		}
		if ev.Type != want.typ || w.Name != "w" || w.Spec.Size != want.size || w.APIVersion != "test.apigen.dev/v1" {
			t.Errorf("got %s %s size %d (%s), want %s of w size %d", ev.Type, w.Name, w.Spec.Size, w.APIVersion, want.typ, want.size)
		}
	}
}

func TestWatchTimeoutLegacyPathAndTable(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	var w v1.Widget
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("one", 1, "red")}, http.StatusCreated, &w)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("two", 1, "red")}, http.StatusCreated, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The legacy single-object path sees only its object; rv "0" starts with the current state.
	_, dec := openWatch(t, ctx, s.url+"/apis/test.apigen.dev/v1/watch/namespaces/ns/widgets/one?resourceVersion=0&timeoutSeconds=1", "")
	var names []string
	for {
		var ev metav1.WatchEvent
		if err := dec.Decode(&ev); err != nil {
			break // the server ends the stream after timeoutSeconds
		}
		var obj v1.Widget
		_ = json.Unmarshal(ev.Object.Raw, &obj)
		names = append(names, ev.Type+" "+obj.Name)
	}
	if len(names) != 1 || names[0] != "ADDED one" {
		t.Errorf("legacy watch events: %v", names)
	}
	if ctx.Err() != nil {
		t.Fatal("the watch did not end at timeoutSeconds")
	}

	_, dec = openWatch(t, ctx, s.url+widgets+"?watch=1&resourceVersion="+w.ResourceVersion, kubectlTableAccept)
	var ev metav1.WatchEvent
	if err := dec.Decode(&ev); err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(ev.Object.Raw, &table); err != nil || table.Kind != "Table" || len(table.Rows) != 1 ||
		table.Rows[0].Cells[0] != "two" {
		t.Errorf("table watch event: %s %s %v", ev.Type, ev.Object.Raw, err)
	}
}

func TestWatchBadResourceVersion(t *testing.T) {
	s := newTestServer(t)
	// A malformed resourceVersion is a 400 before the stream starts.
	s.expectStatus(t, request{method: "GET", path: widgets + "?watch=true&resourceVersion=abc"}, http.StatusBadRequest,
		metav1.StatusReasonBadRequest, "")
}

// TestWatchListStream checks the streaming list client-go informers use by default: ADDED
// for every current object, then a BOOKMARK annotated k8s.io/initial-events-end.
func TestWatchListStream(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("a", 1, "red")}, http.StatusCreated, nil)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("b", 1, "red")}, http.StatusCreated, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, dec := openWatch(t, ctx, s.url+widgets+
		"?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=", "")
	var got []string
	for len(got) < 3 {
		var ev metav1.WatchEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		var w v1.Widget
		if err := json.Unmarshal(ev.Object.Raw, &w); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "BOOKMARK" {
			got = append(got, ev.Type+" "+w.Annotations["k8s.io/initial-events-end"])
			continue
		}
		got = append(got, ev.Type+" "+w.Name)
	}
	want := []string{"ADDED a", "ADDED b", "BOOKMARK true"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}

// TestWatchGzip: a streaming list whose client accepts gzip is gzipped, as kube-apiserver's
// (WatchListCompression), and its events still arrive as they happen (each flush ends a gzip
// member); a plain watch is not gzipped, gzip accepted or not.
func TestWatchGzip(t *testing.T) {
	s := newTestServer(t)
	var a v1.Widget
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("a", 1, "red")}, http.StatusCreated, &a)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	open := func(query string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, "GET", s.url+widgets+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Set by hand, so that the transport hands the body over as sent.
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch%s: status %d", query, resp.StatusCode)
		}
		return resp
	}
	plain := open("?watch=true&resourceVersion=" + a.ResourceVersion)
	if ce := plain.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("plain watch: Content-Encoding %q, want none", ce)
	}
	list := open("?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=")
	if ce, vary := list.Header.Get("Content-Encoding"), list.Header.Get("Vary"); ce != "gzip" || vary != "Accept-Encoding" {
		t.Fatalf("streaming list: Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", ce, vary)
	}
	zr, err := gzip.NewReader(list.Body)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	next := func() string {
		t.Helper()
		var ev metav1.WatchEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("reading the streaming list: %v", err)
		}
		var w v1.Widget
		if err := json.Unmarshal(ev.Object.Raw, &w); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "BOOKMARK" {
			return ev.Type + " " + w.Annotations["k8s.io/initial-events-end"]
		}
		return ev.Type + " " + w.Name
	}
	for _, want := range []string{"ADDED a", "BOOKMARK true"} {
		if got := next(); got != want {
			t.Fatalf("streaming list: %s, want %s", got, want)
		}
	}
	// Written after the initial events were flushed: it arrives alone, in a member of its own.
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("b", 1, "red")}, http.StatusCreated, nil)
	if got := next(); got != "ADDED b" {
		t.Fatalf("streaming list: %s, want ADDED b", got)
	}
	var ev metav1.WatchEvent
	if err := json.NewDecoder(plain.Body).Decode(&ev); err != nil || ev.Type != "ADDED" {
		t.Fatalf("plain watch: %s, %v; want the ADDED event of b in plain JSON", ev.Type, err)
	}
}

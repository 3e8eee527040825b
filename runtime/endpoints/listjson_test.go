package endpoints_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/runtime/endpoints"
)

// getList sends GET path with Accept-Encoding: gzip when gz, and returns the response and
// its body, decompressed.
func getList(t *testing.T, s *testServer, path string, gz bool) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip") // set by hand: the transport leaves the body compressed
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, data)
	}
	return resp, data
}

// TestListFromCachedEncodings: a JSON list assembled from the items' cached encodings is the
// serializer's list byte for byte, plain or gzipped (a body over 128 KiB, for a client that
// accepts gzip, as kube-apiserver compresses), paged or not, and again from the page cache;
// a small body is never gzipped; a change shows in the next list.
func TestListFromCachedEncodings(t *testing.T) {
	s := newTestServer(t)
	long := strings.Repeat("x<&>", 250)
	for i := range 150 {
		body := fmt.Sprintf(`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"w%03d","annotations":{"a":%q}},"spec":{"size":%d,"color":"red"}}`, i, long, i%100)
		s.expect(t, request{method: "POST", path: widgets, body: body}, http.StatusCreated, nil)
	}
	for _, path := range []string{widgets, widgets + "?limit=100", widgets + "?labelSelector=x!%3Dy&limit=7"} {
		restore := endpoints.SetListFromEncodings(false)
		_, want := getList(t, s, path, false)
		restore()
		for _, gz := range []bool{false, true, true} { // the second gzipped one from the page cache
			resp, got := getList(t, s, path, gz)
			if !bytes.Equal(got, want) {
				t.Fatalf("GET %s (gzip %v):\n%.300s\nwant\n%.300s", path, gz, got, want)
			}
			zipped := resp.Header.Get("Content-Encoding") == "gzip"
			if zipped != (gz && len(want) > 128<<10) {
				t.Errorf("GET %s (gzip accepted: %v) of %d bytes: Content-Encoding %q", path, gz, len(want), resp.Header.Get("Content-Encoding"))
			}
		}
	}
	s.expect(t, request{method: "DELETE", path: widgets + "/w000"}, http.StatusOK, nil)
	if _, got := getList(t, s, widgets, true); bytes.Contains(got, []byte(`"name":"w000"`)) {
		t.Errorf("the list after a delete still shows it")
	}
}

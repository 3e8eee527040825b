package endpoints_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testServer serves the test group over real HTTP on 127.0.0.1, backed by a real etcd.
type testServer struct {
	url       string
	discovery []*metav1.APIResourceList
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	return newLimitedServer(t, nil)
}

// request is one HTTP call.
type request struct {
	method, path, contentType, accept, body string
	// userAgent is the User-Agent header; "" sends Go's default.
	userAgent string
}

// do sends r and returns the response (body read and closed) and its body.
func (s *testServer) do(t *testing.T, r request) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, s.url+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.contentType == "" && r.body != "" {
		r.contentType = "application/json"
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if r.userAgent != "" {
		req.Header.Set("User-Agent", r.userAgent)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// expect sends r, checks the status code and decodes a JSON body into out (when not nil).
func (s *testServer) expect(t *testing.T, r request, code int, out interface{}) *http.Response {
	t.Helper()
	resp, data := s.do(t, r)
	if resp.StatusCode != code {
		t.Fatalf("%s %s: got %d, want %d: %s", r.method, r.path, resp.StatusCode, code, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: cannot decode %s: %v", r.method, r.path, data, err)
		}
	}
	return resp
}

// expectStatus sends r and checks the metav1.Status error it gets.
func (s *testServer) expectStatus(t *testing.T, r request, code int, reason metav1.StatusReason, msgPart string) *metav1.Status {
	t.Helper()
	status := &metav1.Status{}
	s.expect(t, r, code, status)
	if status.Kind != "Status" || status.APIVersion != "v1" || status.Status != metav1.StatusFailure ||
		status.Code != int32(code) || status.Reason != reason || !strings.Contains(status.Message, msgPart) {
		t.Fatalf("%s %s: got status %+v, want %d %s containing %q", r.method, r.path, status, code, reason, msgPart)
	}
	return status
}

const widgets = "/apis/test.apigen.dev/v1/namespaces/ns/widgets"

// widgetJSON is a v1 Widget body.
func widgetJSON(name string, size int, color string) string {
	return `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"` + name + `"},` +
		`"spec":{"size":` + itoa(size) + `,"color":"` + color + `"}}`
}

func itoa(i int) string {
	data, _ := json.Marshal(i)
	return string(data)
}

func jsonMarshal(v interface{}) (string, error) {
	data, err := json.Marshal(v)
	return string(data), err
}

func isConflict(err error) bool { return apierrors.IsConflict(err) }

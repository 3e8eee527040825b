package endpoints_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRefusedInputsChangeNothing sends input kube-apiserver refuses: each gets kube's code
// and reason, and the stored object is the same afterwards.
func TestRefusedInputsChangeNothing(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("keep", 1, "red")}, http.StatusCreated, nil)
	_, before := s.do(t, request{method: "GET", path: widgets + "/keep"})
	// Past etcd's 1.5 MiB request limit, within the 3 MiB body limit.
	big := strings.Repeat("x", 2<<20)
	for _, tc := range []struct {
		name string
		r    request
		code int
		msg  string
	}{
		{"propagationPolicy in the query", request{method: "DELETE", path: widgets + "/keep?propagationPolicy=Sideways"},
			422, `propagationPolicy: Unsupported value: "Sideways"`},
		{"propagationPolicy in the body", request{method: "DELETE", path: widgets + "/keep",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Sideways"}`}, 422, `Unsupported value: "Sideways"`},
		{"propagationPolicy with orphanDependents", request{method: "DELETE", path: widgets + "/keep",
			body: `{"propagationPolicy":"Orphan","orphanDependents":true}`}, 422, "orphanDependents and deletionPropagation cannot be both set"},
		{"deletecollection propagationPolicy", request{method: "DELETE", path: widgets + "?propagationPolicy=Sideways"}, 422, "propagationPolicy"},
		{"delete <name>/", request{method: "DELETE", path: widgets + "/keep/"}, 404, `"keep/" not found`},
		{"delete <name>%2F", request{method: "DELETE", path: widgets + "/keep%2F"}, 404, `"keep/" not found`},
		{"get <name>%2F%2F", request{method: "GET", path: widgets + "/keep%2F%2F"}, 404, `"keep//" not found`},
		{"put <name>/", request{method: "PUT", path: widgets + "/keep/", body: widgetJSON("keep", 2, "red")}, 404, "not found"},
		{"create too large for etcd", request{method: "POST", path: widgets, body: widgetJSON("big", 1, big)}, 413, "too large"},
		{"update too large for etcd", request{method: "PUT", path: widgets + "/keep", body: widgetJSON("keep", 1, big)}, 413, "too large"},
		{"merge patch too large for etcd", request{method: "PATCH", path: widgets + "/keep", contentType: "application/merge-patch+json",
			body: `{"spec":{"color":"` + big + `"}}`}, 413, "too large"},
		{"strategic merge patch too large for etcd", request{method: "PATCH", path: widgets + "/keep", contentType: "application/strategic-merge-patch+json",
			body: `{"spec":{"color":"` + big + `"}}`}, 413, "too large"},
		{"JSON patch too large for etcd", request{method: "PATCH", path: widgets + "/keep", contentType: "application/json-patch+json",
			body: `[{"op":"replace","path":"/spec/color","value":"` + big + `"}]`}, 413, "too large"},
	} {
		reason := map[int]metav1.StatusReason{422: metav1.StatusReasonInvalid, 404: metav1.StatusReasonNotFound,
			413: metav1.StatusReasonRequestEntityTooLarge}[tc.code]
		t.Run(tc.name, func(t *testing.T) { s.expectStatus(t, tc.r, tc.code, reason, tc.msg) })
	}
	if _, after := s.do(t, request{method: "GET", path: widgets + "/keep"}); !bytes.Equal(after, before) {
		t.Errorf("a refused request changed the object:\nbefore %s\nafter  %s", before, after)
	}
	s.expect(t, request{method: "GET", path: widgets + "/big"}, http.StatusNotFound, nil)
}

// TestAcceptTypeWildcard: Accept: application/* is answered with JSON, as kube-apiserver
// negotiates it, for one object, a list and a watch.
func TestAcceptTypeWildcard(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("a", 1, "red")}, http.StatusCreated, nil)
	for _, path := range []string{widgets + "/a", widgets, widgets + "?watch=true&timeoutSeconds=1"} {
		for _, accept := range []string{"application/*", "text/html, application/*;q=0.8"} {
			resp, body := s.do(t, request{method: "GET", path: path, accept: accept})
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !bytes.Contains(body, []byte(`"name":"a"`)) {
				t.Errorf("GET %s Accept %q: %d %s %.200s, want JSON", path, accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		}
	}
	s.expectStatus(t, request{method: "GET", path: widgets + "/a", accept: "text/*"}, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, "")
}

package endpoints_test

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestListOptionsValidation: list and watch parameters apimachinery's ValidateListOptions
// refuses are 422 Invalid (kind ListOptions) with its messages, as kube-apiserver answers
// them, instead of a watch silently opened.
func TestListOptionsValidation(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, tc := range []struct {
		query  string
		code   int
		reason metav1.StatusReason
		msg    string
	}{
		{"?watch=true&timeoutSeconds=-1", 422, metav1.StatusReasonInvalid, "timeoutSeconds: Invalid value: -1: must be greater than or equal to 0"},
		// Any value but 0, false and off decodes as true (apimachinery's string-to-bool
		// conversion), which then needs resourceVersionMatch.
		{"?watch=true&sendInitialEvents=maybe", 422, metav1.StatusReasonInvalid, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"?watch=true&sendInitialEvents=true", 422, metav1.StatusReasonInvalid, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"?watch=true&resourceVersion=1&resourceVersionMatch=Exact", 422, metav1.StatusReasonInvalid, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"?resourceVersionMatch=Exact", 422, metav1.StatusReasonInvalid, "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"?resourceVersion=0&resourceVersionMatch=Exact", 422, metav1.StatusReasonInvalid, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"?resourceVersion=1&resourceVersionMatch=Newest", 422, metav1.StatusReasonInvalid, `Unsupported value: "Newest"`},
		{"?sendInitialEvents=true", 422, metav1.StatusReasonInvalid, "sendInitialEvents is forbidden for list"},
	} {
		st := s.expectStatus(t, request{method: "GET", path: widgets + tc.query}, tc.code, tc.reason, tc.msg)
		if tc.code == 422 && (st.Details == nil || st.Details.Kind != "ListOptions" || st.Details.Group != "meta.k8s.io") {
			t.Errorf("%s: details %+v, want kind ListOptions of meta.k8s.io", tc.query, st.Details)
		}
	}
	// The legacy /watch/ path is a watch too.
	s.expectStatus(t, request{method: "GET", path: "/apis/test.apigen.dev/v1/watch/namespaces/ns/widgets?timeoutSeconds=-5"},
		422, metav1.StatusReasonInvalid, "timeoutSeconds")
	// A valid streaming list is served.
	resp, _ := s.do(t, request{method: "GET", path: widgets + "?watch=true&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("streaming list: %d", resp.StatusCode)
	}
}

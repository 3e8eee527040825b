package endpoints_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

// TestGetAfterChanges: GET, whose JSON responses are remembered per object state, shows
// every change: an update, a status update, a delete and a recreate under the same name
// (same resourceVersion sequence, new uid); YAML is still YAML.
func TestGetAfterChanges(t *testing.T) {
	s := newTestServer(t)
	get := func() (v1.Widget, []byte) {
		t.Helper()
		var w v1.Widget
		resp, data := s.do(t, request{method: "GET", path: widgets + "/w1"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d %s", resp.StatusCode, data)
		}
		s.expect(t, request{method: "GET", path: widgets + "/w1"}, http.StatusOK, &w)
		return w, data
	}
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("w1", 2, "red")}, http.StatusCreated, nil)
	first, firstData := get()
	if again, data := get(); again.ResourceVersion != first.ResourceVersion || !bytes.Equal(data, firstData) {
		t.Fatalf("two GETs of one state differ: %s and %s", firstData, data)
	}

	first.Spec.Color = "green"
	body, _ := jsonMarshal(first)
	s.expect(t, request{method: "PUT", path: widgets + "/w1", body: body}, http.StatusOK, nil)
	if got, data := get(); got.Spec.Color != "green" || got.ResourceVersion == first.ResourceVersion {
		t.Errorf("after an update: %s", data)
	}

	got, _ := get()
	got.Status.Phase = "Ready"
	body, _ = jsonMarshal(got)
	s.expect(t, request{method: "PUT", path: widgets + "/w1/status", body: body}, http.StatusOK, nil)
	if after, data := get(); after.Status.Phase != "Ready" {
		t.Errorf("after a status update: %s", data)
	}

	s.expect(t, request{method: "DELETE", path: widgets + "/w1"}, http.StatusOK, nil)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("w1", 3, "blue")}, http.StatusCreated, nil)
	if recreated, data := get(); recreated.Spec.Color != "blue" || recreated.UID == first.UID {
		t.Errorf("after delete and create: %s", data)
	}

	resp, data := s.do(t, request{method: "GET", path: widgets + "/w1", accept: "application/yaml"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/yaml" ||
		!strings.Contains(string(data), "color: blue") {
		t.Errorf("YAML GET: %d %v %s", resp.StatusCode, resp.Header, data)
	}
}

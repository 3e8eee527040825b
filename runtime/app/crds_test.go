package app

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// widgetCRD is a namespaced CRD of crd.example.com, as JSON.
const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.crd.example.com"},
"spec":{"group":"crd.example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
"properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","default":3}}}}}}}]}}`

// send sends method url with body (JSON) and returns the status code and body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out)
}

// waitFor polls GET url until it answers code, failing after timeout.
func waitFor(t *testing.T, url string, code int, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, body := httpGet(t, url)
		if got == code {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %s, want %d within %v", url, got, body, code, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunServesCRDs checks the extensions server link of the chain as Run wires it: the CRD
// API and its post-start hook, a new CRD served and listed in /apis within a second, its
// objects defaulted through the chain, OpenAPI across the chain, and a terminating
// namespace's custom resources deleted by the namespace controller.
func TestRunServesCRDs(t *testing.T) {
	url, _ := start(t)
	if code, body := httpGet(t, url+"/readyz/poststarthook/start-apiextensions-controllers"); code != http.StatusOK {
		t.Errorf("readyz of the controllers hook: %d %s", code, body)
	}
	if code, body := send(t, http.MethodPost, url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD); code != http.StatusCreated {
		t.Fatalf("creating the CRD: %d %s", code, body)
	}
	waitFor(t, url+"/apis/crd.example.com/v1", http.StatusOK, time.Second)
	if _, body := httpGet(t, url+"/apis"); !strings.Contains(body, `"apiextensions.k8s.io"`) || !strings.Contains(body, `"crd.example.com"`) {
		t.Errorf("/apis lacks apiextensions.k8s.io or crd.example.com:\n%s", body)
	}
	if _, body := httpGet(t, url+"/openapi/v2"); !strings.Contains(body, "CustomResourceDefinition") {
		t.Error("/openapi/v2 does not describe CustomResourceDefinition")
	}

	if code, body := send(t, http.MethodPost, url+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`); code != http.StatusCreated {
		t.Fatalf("creating namespace team-a: %d %s", code, body)
	}
	gadgets := url + "/apis/crd.example.com/v1/namespaces/team-a/gadgets"
	code, body := send(t, http.MethodPost, gadgets, `{"apiVersion":"crd.example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{}}`)
	if code != http.StatusCreated {
		t.Fatalf("creating a Gadget: %d %s", code, body)
	}
	var g struct {
		Spec struct{ Size int } `json:"spec"`
	}
	if err := json.Unmarshal([]byte(body), &g); err != nil || g.Spec.Size != 3 {
		t.Errorf("created Gadget %s: spec.size default not applied (%v)", body, err)
	}

	// Custom resources go through the server's admission chain: NamespaceLifecycle refuses a
	// missing namespace.
	code, body = send(t, http.MethodPost, url+"/apis/crd.example.com/v1/namespaces/missing/gadgets",
		`{"apiVersion":"crd.example.com/v1","kind":"Gadget","metadata":{"name":"g2"}}`)
	if code != http.StatusNotFound || !strings.Contains(body, `namespaces \"missing\" not found`) {
		t.Errorf("creating a Gadget in a missing namespace: %d %s, want 404 from NamespaceLifecycle", code, body)
	}

	if code, body := send(t, http.MethodDelete, url+"/api/v1/namespaces/team-a", ""); code != http.StatusOK {
		t.Fatalf("deleting namespace team-a: %d %s", code, body)
	}
	waitFor(t, url+"/api/v1/namespaces/team-a", http.StatusNotFound, 20*time.Second)
	if _, body := httpGet(t, gadgets); strings.Contains(body, `"g1"`) {
		t.Errorf("Gadget g1 survived its namespace: %s", body)
	}
}

// TestRunCRDsOff checks --runtime-config=apiextensions.k8s.io/v1=false: no CRD API, no hook.
func TestRunCRDsOff(t *testing.T) {
	url, _ := startArgs(t, []string{"--plain-http", "--runtime-config=apiextensions.k8s.io/v1=false"})
	if code, body := httpGet(t, url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"); code != http.StatusNotFound {
		t.Errorf("CRDs with apiextensions.k8s.io/v1=false: %d %s, want 404", code, body)
	}
	if _, body := httpGet(t, url+"/readyz?verbose"); bytes.Contains([]byte(body), []byte("start-apiextensions-controllers")) {
		t.Errorf("/readyz lists the CRD controllers with the API off:\n%s", body)
	}
}

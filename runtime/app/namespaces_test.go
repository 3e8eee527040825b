package app

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// postWidget creates a widget named name in namespace ns over plain HTTP and returns the
// status code and body.
func postWidget(t *testing.T, url, ns, name string) (int, string) {
	t.Helper()
	body := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"` + name + `"}}`
	resp, err := http.Post(url+"/apis/test.apigen.dev/v1/namespaces/"+ns+"/widgets", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status metav1.Status
	_ = json.NewDecoder(resp.Body).Decode(&status)
	return resp.StatusCode, status.Message
}

// TestRunNamespaces serves the core group at /api/v1 next to the test group, with the system
// namespaces and NamespaceLifecycle on by default.
func TestRunNamespaces(t *testing.T) {
	url, kubeconfig := start(t, testGroup)

	if code, body := httpGet(t, url+"/api"); code != http.StatusOK || !strings.Contains(body, `"versions":["v1"]`) {
		t.Errorf("/api: %d %s", code, body)
	}
	if code, body := httpGet(t, url+"/api/v1"); code != http.StatusOK || !strings.Contains(body, `"groupVersion":"v1"`) ||
		!strings.Contains(body, `"name":"namespaces"`) || !strings.Contains(body, `"name":"namespaces/finalize"`) {
		t.Errorf("/api/v1: %d %s", code, body)
	}
	var groups metav1.APIGroupList
	_, body := httpGet(t, url+"/apis")
	if err := json.Unmarshal([]byte(body), &groups); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		if g.Name == "" {
			t.Errorf("/apis lists the core group: %s", body)
		}
	}
	if code, body := httpGet(t, url+"/openapi/v3/api/v1"); code != http.StatusOK || !strings.Contains(body, "io.k8s.api.core.v1.Namespace") {
		t.Errorf("/openapi/v3/api/v1: %d %.300s", code, body)
	}
	_, readyz := httpGet(t, url+"/readyz?verbose")
	for _, hook := range []string{"start-system-namespaces-controller", singletonsHookName, "start-kube-apiserver-admission-initializer"} {
		if !strings.Contains(readyz, "[+]poststarthook/"+hook+" ok") {
			t.Errorf("/readyz?verbose lacks the hook %s:\n%s", hook, readyz)
		}
	}
	if code, body := httpGet(t, url+"/openapi/v2"); code != http.StatusOK || !strings.Contains(body, `"/api/v1/namespaces/{name}/finalize"`) {
		t.Errorf("/openapi/v2 lacks /api/v1/namespaces/{name}/finalize: %d", code)
	}
	out := runKubectl(t, kubeconfig, "get", "namespaces", "-o", "name")
	for _, ns := range []string{"namespace/default", "namespace/kube-system", "namespace/kube-public"} {
		if !strings.Contains(out, ns) {
			t.Errorf("kubectl get namespaces lacks %s:\n%s", ns, out)
		}
	}
	if code, msg := postWidget(t, url, "default", "w"); code != http.StatusCreated {
		t.Errorf("create in default: %d %s", code, msg)
	}
	if code, msg := postWidget(t, url, "missing", "w"); code != http.StatusNotFound || msg != `namespaces "missing" not found` {
		t.Errorf("create in a missing namespace: %d %s", code, msg)
	}
}

// TestRunNamespaceLifecycleDisabled turns the plugin off: content may be created in any
// namespace, as kube-apiserver with --disable-admission-plugins=NamespaceLifecycle.
func TestRunNamespaceLifecycleDisabled(t *testing.T) {
	url, _ := startArgs(t, []string{"--plain-http", "--disable-admission-plugins=NamespaceLifecycle"}, testGroup)
	if code, msg := postWidget(t, url, "missing", "w"); code != http.StatusCreated {
		t.Errorf("create in a missing namespace: %d %s", code, msg)
	}
}

// TestRunCoreGroupOff turns the core group off with --runtime-config api/v1=false: /api lists no
// version and namespaces are not served.
func TestRunCoreGroupOff(t *testing.T) {
	url, _ := startArgs(t, []string{"--plain-http", "--runtime-config=api/v1=false"}, testGroup)
	if code, body := httpGet(t, url+"/api"); code != http.StatusOK || !strings.Contains(body, `"versions":[]`) {
		t.Errorf("/api: %d %s", code, body)
	}
	if code, _ := httpGet(t, url+"/api/v1/namespaces"); code != http.StatusNotFound {
		t.Errorf("/api/v1/namespaces: %d, want 404", code)
	}
	if code, msg := postWidget(t, url, "anything", "w"); code != http.StatusCreated {
		t.Errorf("create without the core group: %d %s", code, msg)
	}
}

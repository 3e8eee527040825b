package apiextensions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// crdsPath is the collection of CustomResourceDefinitions.
const crdsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// startExtensions serves an extensions server over client (a real etcd) on a free loopback
// port until the test ends, and returns its URL once its post-start hooks ran.
func startExtensions(t *testing.T, client *clientv3.Client) string {
	t.Helper()
	return startExtensionsWith(t, Config{Storage: &etcd3.StorageFactory{Client: client, Prefix: "/registry"}})
}

// startExtensionsWith is startExtensions with cfg (its Storage set; Server and Scheme are
// filled in).
func startExtensionsWith(t *testing.T, cfg Config) string {
	t.Helper()
	cfg.Server, cfg.Scheme = server.Config{Name: "test-extensions"}, runtime.NewScheme()
	ext, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	prepared, err := ext.Server.PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- prepared.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case <-prepared.Ready():
	case err := <-done:
		t.Fatalf("server ended before ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server not ready after 10s")
	}
	return "http://" + ln.Addr().String()
}

// do sends method url with a JSON body (none when empty) and returns the code and body.
func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
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

// eventually polls check every 20ms until it returns "", failing with its last message after
// settle.
func eventually(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(settle)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", settle, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settle bounds eventually: what the server does in milliseconds on an idle machine, with
// room for one loaded by the race detector and other packages (CI runs them side by side); a
// passing check returns as soon as it holds.
const settle = time.Minute

// getCRD reads the CRD name, failing the test unless it exists.
func getCRD(t *testing.T, url, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	code, body := do(t, http.MethodGet, url+crdsPath+"/"+name, "")
	if code != http.StatusOK {
		t.Fatalf("GET CRD %s: %d %s", name, code, body)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal([]byte(body), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// gizmoCRD is a namespaced CRD of ext.example.com with a status subresource.
const gizmoCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gizmos.ext.example.com"},
"spec":{"group":"ext.example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo","shortNames":["gz"]},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}},
"status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}`

// TestCRDLifecycle creates a CRD and checks it is served within a second with its status
// (accepted names, conditions, stored versions, finalizer), then deletes it while one of its
// objects has a finalizer: the CRD turns Terminating, creates are refused, and once the
// object goes the CRD and its routes go too.
func TestCRDLifecycle(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	if code, body := do(t, http.MethodPost, url+crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, body)
	}
	gizmos := url + "/apis/ext.example.com/v1/namespaces/default/gizmos"
	eventually(t, func() string {
		if code, body := do(t, http.MethodGet, gizmos, ""); code != http.StatusOK {
			return "gizmos not served: " + body
		}
		return ""
	})
	eventually(t, func() string {
		crd := getCRD(t, url, "gizmos.ext.example.com")
		if !apiextensionsv1.IsConditionTrue(crd, apiextensionsv1.Established) || !apiextensionsv1.IsConditionTrue(crd, apiextensionsv1.NamesAccepted) {
			return "conditions not True: " + toJSON(crd.Status.Conditions)
		}
		return ""
	})
	crd := getCRD(t, url, "gizmos.ext.example.com")
	if got := toJSON([]any{crd.Status.AcceptedNames, crd.Status.StoredVersions, crd.Finalizers, crd.Spec.Conversion}); got !=
		`[{"plural":"gizmos","singular":"gizmo","shortNames":["gz"],"kind":"Gizmo","listKind":"GizmoList"},["v1"],["customresourcecleanup.apiextensions.k8s.io"],{"strategy":"None"}]` {
		t.Errorf("accepted names, stored versions, finalizers, conversion = %s", got)
	}
	if code, body := do(t, http.MethodGet, url+"/apis", ""); code != http.StatusOK || !strings.Contains(body, `"ext.example.com"`) {
		t.Errorf("/apis does not list ext.example.com: %d %s", code, body)
	}

	held := `{"apiVersion":"ext.example.com/v1","kind":"Gizmo","metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{"size":1}}`
	if code, body := do(t, http.MethodPost, gizmos, held); code != http.StatusCreated {
		t.Fatalf("create gizmo: %d %s", code, body)
	}
	if code, body := do(t, http.MethodDelete, url+crdsPath+"/gizmos.ext.example.com", ""); code != http.StatusOK {
		t.Fatalf("delete CRD: %d %s", code, body)
	}
	eventually(t, func() string {
		crd := getCRD(t, url, "gizmos.ext.example.com")
		if c := apiextensionsv1.FindCondition(crd, apiextensionsv1.Terminating); c == nil || c.Status != apiextensionsv1.ConditionTrue ||
			c.Reason != "InstanceDeletionCheck" {
			return "Terminating condition: " + toJSON(c)
		}
		return ""
	})
	code, body := do(t, http.MethodPost, gizmos, `{"apiVersion":"ext.example.com/v1","kind":"Gizmo","metadata":{"name":"late"}}`)
	if code != http.StatusMethodNotAllowed || !strings.Contains(body, "create not allowed while custom resource definition is terminating") {
		t.Errorf("create while terminating: %d %s, want 405", code, body)
	}
	if code, body := do(t, http.MethodPatch, gizmos+"/held", `{"metadata":{"finalizers":null}}`); code != http.StatusOK {
		t.Fatalf("remove the gizmo's finalizer: %d %s", code, body)
	}
	eventually(t, func() string {
		if code, body := do(t, http.MethodGet, url+crdsPath+"/gizmos.ext.example.com", ""); code != http.StatusNotFound {
			return "CRD still there: " + body
		}
		return ""
	})
	if code, body := do(t, http.MethodGet, gizmos, ""); code != http.StatusNotFound {
		t.Errorf("gizmos still served after the CRD went: %d %s", code, body)
	}
	if _, body := do(t, http.MethodGet, url+"/apis", ""); strings.Contains(body, `"ext.example.com"`) {
		t.Errorf("/apis still lists ext.example.com: %s", body)
	}
}

// TestCRDServedAfterRestart checks that a server started over an etcd holding a CRD serves it
// as soon as it is ready (the controllers' post-start hook serves stored CRDs before it
// returns).
func TestCRDServedAfterRestart(t *testing.T) {
	client, _ := etcdtest.Run(t)
	first := startExtensions(t, client)
	if code, body := do(t, http.MethodPost, first+crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, body)
	}
	eventually(t, func() string {
		if !apiextensionsv1.IsConditionTrue(getCRD(t, first, "gizmos.ext.example.com"), apiextensionsv1.Established) {
			return "not established"
		}
		return ""
	})
	second := startExtensions(t, client)
	if code, body := do(t, http.MethodGet, second+"/apis/ext.example.com/v1/gizmos", ""); code != http.StatusOK {
		t.Errorf("second server does not serve gizmos once ready: %d %s", code, body)
	}
}

// TestCRDStatusOnlyThroughStatus checks the CRD's own status subresource: a user's update of
// the main resource keeps the status the server wrote.
func TestCRDStatusOnlyThroughStatus(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	if code, body := do(t, http.MethodPost, url+crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, body)
	}
	eventually(t, func() string {
		if !apiextensionsv1.IsConditionTrue(getCRD(t, url, "gizmos.ext.example.com"), apiextensionsv1.Established) {
			return "not established"
		}
		return ""
	})
	code, body := do(t, http.MethodPatch, url+crdsPath+"/gizmos.ext.example.com", `{"status":{"storedVersions":["v9"]},"spec":{"names":{"shortNames":["gz","gzm"]}}}`)
	if code != http.StatusOK {
		t.Fatalf("patch CRD: %d %s", code, body)
	}
	crd := getCRD(t, url, "gizmos.ext.example.com")
	if got := toJSON(crd.Status.StoredVersions); got != `["v1"]` {
		t.Errorf("storedVersions after a main-resource patch = %s, want [\"v1\"]", got)
	}
	eventually(t, func() string {
		if got := toJSON(getCRD(t, url, "gizmos.ext.example.com").Status.AcceptedNames.ShortNames); got != `["gz","gzm"]` {
			return "accepted short names " + got
		}
		return ""
	})
}

// toJSON renders v as compact JSON for comparisons and messages.
func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestCRDTwoVersions serves a CRD with two versions (conversion None): an object created
// through one reads back through the other with only its apiVersion changed, and discovery
// prefers v1.
func TestCRDTwoVersions(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	body := strings.Replace(gizmoCRD, `"versions":[{`, `"versions":[{"name":"v1beta1","served":true,"storage":false,"deprecated":true,
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},{`, 1)
	if code, out := do(t, http.MethodPost, url+crdsPath, body); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	eventually(t, func() string {
		if code, out := do(t, http.MethodGet, url+"/apis/ext.example.com", ""); code != http.StatusOK ||
			!strings.Contains(out, `"preferredVersion":{"groupVersion":"ext.example.com/v1","version":"v1"}`) {
			return "group discovery: " + out
		}
		return ""
	})
	if code, out := do(t, http.MethodPost, url+"/apis/ext.example.com/v1beta1/namespaces/default/gizmos",
		`{"apiVersion":"ext.example.com/v1beta1","kind":"Gizmo","metadata":{"name":"old"},"spec":{"size":2}}`); code != http.StatusCreated {
		t.Fatalf("create through v1beta1: %d %s", code, out)
	}
	code, out := do(t, http.MethodGet, url+"/apis/ext.example.com/v1/namespaces/default/gizmos/old", "")
	if code != http.StatusOK || !strings.Contains(out, `"apiVersion":"ext.example.com/v1"`) || !strings.Contains(out, `"size":2`) {
		t.Errorf("read through v1: %d %s", code, out)
	}
}

// TestCRDNameConflictResolves creates two CRDs of a group asking for the same kind: the
// second is not served (NamesAccepted False; as upstream, the reason is the last conflicting
// name checked, the list kind) until the first is deleted, then it is established.
func TestCRDNameConflictResolves(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	second := strings.NewReplacer(`"name":"gizmos.ext.example.com"`, `"name":"gadgets.ext.example.com"`,
		`"plural":"gizmos"`, `"plural":"gadgets"`, `"shortNames":["gz"]`, `"shortNames":["gd"]`).Replace(gizmoCRD)
	for _, body := range []string{gizmoCRD, second} {
		if code, out := do(t, http.MethodPost, url+crdsPath, body); code != http.StatusCreated {
			t.Fatalf("create CRD: %d %s", code, out)
		}
	}
	eventually(t, func() string {
		c := apiextensionsv1.FindCondition(getCRD(t, url, "gadgets.ext.example.com"), apiextensionsv1.NamesAccepted)
		if c == nil || c.Status != apiextensionsv1.ConditionFalse || c.Reason != "ListKindConflict" || c.Message != `"GizmoList" is already in use` {
			return "gadgets NamesAccepted: " + toJSON(c)
		}
		return ""
	})
	if code, _ := do(t, http.MethodGet, url+"/apis/ext.example.com/v1/gadgets", ""); code != http.StatusNotFound {
		t.Errorf("gadgets served with a conflicting kind: %d", code)
	}
	if code, out := do(t, http.MethodDelete, url+crdsPath+"/gizmos.ext.example.com", ""); code != http.StatusOK {
		t.Fatalf("delete gizmos: %d %s", code, out)
	}
	eventually(t, func() string {
		if crd := getCRD(t, url, "gadgets.ext.example.com"); !apiextensionsv1.IsConditionTrue(crd, apiextensionsv1.Established) {
			return "gadgets not established after gizmos went: " + toJSON(crd.Status)
		}
		return ""
	})
	if code, out := do(t, http.MethodGet, url+"/apis/ext.example.com/v1/gadgets", ""); code != http.StatusOK {
		t.Errorf("gadgets not served: %d %s", code, out)
	}
}

// TestCRDSelectableFields serves a CRD with a selectable field: a field selector on it
// selects the objects.
func TestCRDSelectableFields(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	body := strings.Replace(gizmoCRD, `"subresources"`, `"selectableFields":[{"jsonPath":".spec.size"}],"subresources"`, 1)
	if code, out := do(t, http.MethodPost, url+crdsPath, body); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	gizmos := url + "/apis/ext.example.com/v1/namespaces/default/gizmos"
	eventually(t, func() string {
		if code, out := do(t, http.MethodGet, gizmos, ""); code != http.StatusOK {
			return "gizmos not served: " + out
		}
		return ""
	})
	for _, g := range []string{`{"metadata":{"name":"small"},"spec":{"size":1}}`, `{"metadata":{"name":"big"},"spec":{"size":9}}`} {
		if code, out := do(t, http.MethodPost, gizmos, `{"apiVersion":"ext.example.com/v1","kind":"Gizmo",`+g[1:]); code != http.StatusCreated {
			t.Fatalf("create gizmo: %d %s", code, out)
		}
	}
	code, out := do(t, http.MethodGet, gizmos+"?fieldSelector=spec.size%3D9", "")
	if code != http.StatusOK || !strings.Contains(out, `"big"`) || strings.Contains(out, `"small"`) {
		t.Errorf("list with fieldSelector=spec.size=9: %d %s", code, out)
	}
}

// TestManyCRDs creates 12 CRDs of two groups at once: every one is established and served.
func TestManyCRDs(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	var names []string
	errs := make(chan string, 12)
	for i := range 12 {
		group := []string{"one.example.com", "two.example.com"}[i%2]
		plural := fmt.Sprintf("things%d", i)
		names = append(names, plural+"."+group)
		body := strings.NewReplacer(`gizmos.ext.example.com`, plural+"."+group, `ext.example.com`, group,
			`"plural":"gizmos"`, `"plural":"`+plural+`"`, `"kind":"Gizmo"`, fmt.Sprintf(`"kind":"Thing%d"`, i),
			`"shortNames":["gz"]`, fmt.Sprintf(`"shortNames":["t%d"]`, i)).Replace(gizmoCRD)
		go func() { // no t.Fatal off the test goroutine: report through errs
			resp, err := http.Post(url+crdsPath, "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err.Error()
				return
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				errs <- fmt.Sprintf("create %s: %d %s", plural, resp.StatusCode, out)
				return
			}
			errs <- ""
		}()
	}
	for range 12 {
		if msg := <-errs; msg != "" {
			t.Fatal(msg)
		}
	}
	eventually(t, func() string {
		for i, name := range names {
			if !apiextensionsv1.IsConditionTrue(getCRD(t, url, name), apiextensionsv1.Established) {
				return name + " not established"
			}
			group := strings.SplitN(name, ".", 2)[1]
			if code, out := do(t, http.MethodGet, fmt.Sprintf("%s/apis/%s/v1/things%d", url, group, i), ""); code != http.StatusOK {
				return name + " not served: " + out
			}
		}
		return ""
	})
}

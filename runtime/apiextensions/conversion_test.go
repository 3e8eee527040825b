package apiextensions

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion/conversiontest"
	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// convertServer is the test's conversion webhook on loopback HTTPS, controller-runtime's
// handler as kubebuilder scaffolds it (conversion.NewWebhookHandler at /convert); mode makes
// it answer badly, and it records each review's apiVersion and object count.
type convertServer struct {
	*httptest.Server
	ca []byte // the PEM CA bundle verifying its certificate

	mu      sync.Mutex
	mode    string // "", "rename" (a converted object's name changes) or "uid" (another response uid)
	reviews []string
	batches []int
}

func newConvertServer(t *testing.T) *convertServer {
	t.Helper()
	handler := conversiontest.Handler("conv.example.com", "Widget")
	bundle, err := certs.EnsureSelfSigned(t.TempDir(), []string{"convert.webhooks.svc"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	s := &convertServer{}
	if s.ca, err = os.ReadFile(bundle.CertFile(certs.CAName)); err != nil {
		t.Fatal(err)
	}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review struct {
			APIVersion string `json:"apiVersion"`
			Request    struct {
				Objects []json.RawMessage `json:"objects"`
			} `json:"request"`
		}
		_ = json.Unmarshal(body, &review)
		s.mu.Lock()
		s.reviews = append(s.reviews, review.APIVersion)
		s.batches = append(s.batches, len(review.Request.Objects))
		mode := s.mode
		s.mu.Unlock()
		if r.URL.Path != "/convert" {
			http.NotFound(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		switch mode {
		case "rename":
			out = bytes.ReplaceAll(out, []byte(`"name":"`), []byte(`"name":"renamed-`))
		case "uid":
			out = bytes.Replace(out, []byte(`"uid":"`), []byte(`"uid":"x`), 1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(out)
	}))
	cert, err := tlsConfig(bundle)
	if err != nil {
		t.Fatal(err)
	}
	s.TLS = cert
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// setMode sets how the server answers.
func (s *convertServer) setMode(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = mode
}

// last returns the apiVersion and object count of the last review, and how many came.
func (s *convertServer) last() (string, int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reviews) == 0 {
		return "", 0, 0
	}
	return s.reviews[len(s.reviews)-1], s.batches[len(s.batches)-1], len(s.reviews)
}

// widgetCRD is the two-version Widget CRD converting through clientConfig (JSON) with
// reviewVersions (JSON).
func widgetCRD(clientConfig, reviewVersions string) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.conv.example.com"},
"spec":{"group":"conv.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
"conversion":{"strategy":"Webhook","webhook":{"clientConfig":` + clientConfig + `,"conversionReviewVersions":` + reviewVersions + `}},
"versions":[
{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},
{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"length":{"type":"integer","maximum":100}}}}}}}]}}`
}

// TestConversionWebhook serves a two-version CRD converting through a controller-runtime
// conversion webhook and checks every path converts: create in v1 read in v2 and the
// reverse, a list (one review for the page), a watch event, validation with the request
// version's schema, update, merge patch and apply
// through v2; then a webhook answering a renamed object or another uid, and one that is down,
// give 500 with kube's message; a service reference resolved by the ServiceResolver, with
// ConversionReview v1beta1 listed first, converts again; with v2 the storage version, an
// object stored in v1 reads back and a write stores v2.
func TestConversionWebhook(t *testing.T) {
	hook := newConvertServer(t)
	client, _ := etcdtest.Run(t)
	hookURL, _ := url.Parse(hook.URL)
	base := startExtensionsWith(t, Config{Storage: &etcd3.StorageFactory{Client: client, Prefix: "/registry"},
		ServiceResolver: resolverFunc(func(ns, name string, port int32) (*url.URL, error) {
			if ns != "webhooks" || name != "convert" || port != 8443 {
				return nil, fmt.Errorf("no service %s/%s:%d", ns, name, port)
			}
			return &url.URL{Scheme: "https", Host: hookURL.Host}, nil
		})})
	ca := base64.StdEncoding.EncodeToString(hook.ca)
	byURL := `{"url":"` + hook.URL + `/convert","caBundle":"` + ca + `"}`
	if code, out := do(t, http.MethodPost, base+crdsPath, widgetCRD(byURL, `["v1"]`)); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	v1 := base + "/apis/conv.example.com/v1/namespaces/default/widgets"
	v2 := base + "/apis/conv.example.com/v2/namespaces/default/widgets"
	eventually(t, func() string {
		if code, out := do(t, http.MethodGet, v2, ""); code != http.StatusOK {
			return fmt.Sprintf("list v2: %d %s", code, out)
		}
		return ""
	})

	if code, out := do(t, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":3}}`); code != http.StatusCreated {
		t.Fatalf("create a in v1: %d %s", code, out)
	}
	expect(t, "a in v2", v2+"/a", `"apiVersion":"conv.example.com/v2"`, `"spec":{"length":3}`)
	if code, out := do(t, http.MethodPost, v2, `{"apiVersion":"conv.example.com/v2","kind":"Widget","metadata":{"name":"b","labels":{"l":"x"}},"spec":{"length":5}}`); code != http.StatusCreated ||
		!strings.Contains(out, `"spec":{"length":5}`) {
		t.Fatalf("create b in v2: %d %s", code, out)
	}
	expect(t, "b in v1", v1+"/b", `"apiVersion":"conv.example.com/v1"`, `"spec":{"size":5}`, `"labels":{"l":"x"}`)

	// The server keeps the encodings of objects it served (as kube-apiserver's watch cache
	// keeps converted objects): objects never read in v2 show the bad answers below.
	for _, name := range []string{"e", "f"} {
		if code, out := do(t, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"},"spec":{"size":1}}`); code != http.StatusCreated {
			t.Fatalf("create %s in v1: %d %s", name, code, out)
		}
	}
	_, _, before := hook.last()
	list := expect(t, "list in v2", v2, `"apiVersion":"conv.example.com/v2","items":[{"apiVersion":"conv.example.com/v2"`, `"length":3`, `"length":5`)
	if _, batch, after := hook.last(); after != before+1 || batch != 4 {
		t.Errorf("list: %d reviews of %d objects, want 1 of 4", after-before, batch)
	}

	var rv struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	_ = json.Unmarshal([]byte(list), &rv)
	events, _ := watchLines(t, v2+"?watch=true&resourceVersion="+rv.Metadata.ResourceVersion)
	if code, out := do(t, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"c"},"spec":{"size":4}}`); code != http.StatusCreated {
		t.Fatalf("create c in v1: %d %s", code, out)
	}
	select {
	case ev := <-events:
		if !strings.Contains(ev, `"type":"ADDED"`) || !strings.Contains(ev, `"apiVersion":"conv.example.com/v2"`) || !strings.Contains(ev, `"length":4`) {
			t.Errorf("watch event in v2: %s", ev)
		}
	case <-time.After(30 * time.Second):
		t.Error("no watch event in 30s")
	}

	// Each version's schema validates the object in that version.
	if code, out := do(t, http.MethodPost, v2, `{"apiVersion":"conv.example.com/v2","kind":"Widget","metadata":{"name":"big"},"spec":{"length":200}}`); code != http.StatusUnprocessableEntity ||
		!strings.Contains(out, `"field":"spec.length"`) {
		t.Errorf("create length 200 in v2 (maximum 100): %d %s, want 422 at spec.length", code, out)
	}
	if code, out := do(t, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"size":200}}`); code != http.StatusCreated {
		t.Errorf("create size 200 in v1 (no maximum): %d %s", code, out)
	}

	b := expect(t, "b in v2", v2+"/b", `"length":5`)
	if code, out := do(t, http.MethodPut, v2+"/b", strings.Replace(b, `"length":5`, `"length":7`, 1)); code != http.StatusOK || !strings.Contains(out, `"length":7`) {
		t.Errorf("update through v2: %d %s", code, out)
	}
	expect(t, "b in v1 after the update", v1+"/b", `"spec":{"size":7}`)
	if code, out := do(t, http.MethodPatch, v2+"/b", `{"spec":{"length":8}}`); code != http.StatusOK || !strings.Contains(out, `"length":8`) {
		t.Errorf("merge patch through v2: %d %s", code, out)
	}
	expect(t, "b in v1 after the patch", v1+"/b", `"spec":{"size":8}`)
	apply := `{"apiVersion":"conv.example.com/v2","kind":"Widget","metadata":{"name":"b"},"spec":{"length":9}}`
	if code, out := send(t, http.MethodPatch, v2+"/b?fieldManager=tester&force=true", "application/apply-patch+yaml", apply); code != http.StatusOK || !strings.Contains(out, `"length":9`) {
		t.Errorf("apply through v2: %d %s", code, out)
	}
	expect(t, "b in v1 after the apply", v1+"/b", `"spec":{"size":9}`, `"manager":"tester"`, `"apiVersion":"conv.example.com/v2"`)
	apply = `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"b"},"spec":{"size":10}}`
	if code, out := send(t, http.MethodPatch, v1+"/b?fieldManager=other", "application/apply-patch+yaml", apply); code != http.StatusConflict ||
		!strings.Contains(out, `conflict with \"tester\"`) {
		t.Errorf("apply through v1 of the field tester owns through v2: %d %s, want 409 naming tester", code, out)
	}

	hook.setMode("rename")
	failure(t, "a renamed object", v2+"/e", "conversion webhook for conv.example.com/v1, Kind=Widget returned invalid object: must have the same name: e != renamed-e")
	failure(t, "a renamed list item", v2, "conversion webhook for conv.example.com/v1, Kind=WidgetList returned invalid converted object at index 0: must have the same name")
	hook.setMode("uid")
	failure(t, "another uid", v2+"/f", "conversion webhook for conv.example.com/v1, Kind=Widget failed: expected response.uid=")
	failure(t, "another uid on create", v2, "conversion webhook for conv.example.com/v2, Kind=Widget failed: expected response.uid=",
		`{"apiVersion":"conv.example.com/v2","kind":"Widget","metadata":{"name":"d"},"spec":{"length":1}}`)
	hook.setMode("")

	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "https://" + down.Addr().String() + "/convert"
	down.Close()
	setWebhook(t, base, `{"clientConfig":{"url":"`+downURL+`"}}`)
	eventually(t, func() string {
		code, out := do(t, http.MethodGet, v2+"/a", "")
		if code != http.StatusInternalServerError || !strings.Contains(out, "conversion webhook for conv.example.com/v1, Kind=Widget failed: Post \\\""+downURL+"?timeout=30s\\\": dial tcp") {
			return fmt.Sprintf("webhook down: %d %s", code, out)
		}
		return ""
	})

	setWebhook(t, base, `{"clientConfig":{"url":null,"service":{"namespace":"webhooks","name":"convert","path":"/convert","port":8443}},
"conversionReviewVersions":["v1beta1","v1"]}`)
	eventually(t, func() string {
		if code, out := do(t, http.MethodGet, v2+"/a", ""); code != http.StatusOK || !strings.Contains(out, `"length":3`) {
			return fmt.Sprintf("through the service: %d %s", code, out)
		}
		return ""
	})
	if review, _, _ := hook.last(); review != "apiextensions.k8s.io/v1beta1" {
		t.Errorf("review sent as %s, want apiextensions.k8s.io/v1beta1 (listed first)", review)
	}

	// v2 becomes the storage version: objects stored in v1 convert on read, writes store v2.
	versions := `{"spec":{"versions":[
{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},
{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"length":{"type":"integer"}}}}}}}]}}`
	if code, out := do(t, http.MethodPatch, base+crdsPath+"/widgets.conv.example.com", versions); code != http.StatusOK {
		t.Fatalf("make v2 the storage version: %d %s", code, out)
	}
	eventually(t, func() string {
		code, out := do(t, http.MethodPatch, v1+"/a", `{"spec":{"size":11}}`)
		if code != http.StatusOK || !strings.Contains(out, `"spec":{"size":11}`) {
			return fmt.Sprintf("patch a through v1: %d %s", code, out)
		}
		resp, err := client.Get(context.Background(), "/registry/conv.example.com/widgets/default/a")
		if err != nil || len(resp.Kvs) != 1 {
			return fmt.Sprintf("read a from etcd: %v", err)
		}
		if stored := string(resp.Kvs[0].Value); !strings.Contains(stored, `"apiVersion":"conv.example.com/v2"`) || !strings.Contains(stored, `"length":11`) {
			return "a stored as " + stored
		}
		return ""
	})
	expect(t, "c (stored in v1) in v1", v1+"/c", `"spec":{"size":4}`)
}

// expect GETs u and fails the test unless it is 200 with every want; it returns the body.
func expect(t *testing.T, what, u string, want ...string) string {
	t.Helper()
	code, out := do(t, http.MethodGet, u, "")
	if code != http.StatusOK {
		t.Fatalf("%s: %d %s", what, code, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: no %s in %s", what, w, out)
		}
	}
	return out
}

// failure GETs u (or POSTs body to it) and fails the test unless the answer is a 500 Status
// whose message starts with msg.
func failure(t *testing.T, what, u, msg string, body ...string) {
	t.Helper()
	method, b := http.MethodGet, ""
	if len(body) > 0 {
		method, b = http.MethodPost, body[0]
	}
	code, out := do(t, method, u, b)
	var status metav1.Status
	if err := json.Unmarshal([]byte(out), &status); err != nil || code != http.StatusInternalServerError ||
		status.Kind != "Status" || status.Code != 500 || !strings.HasPrefix(status.Message, msg) {
		t.Errorf("%s: %d %s, want a 500 Status %q...", what, code, out, msg)
	}
}

// setWebhook merge-patches the Widget CRD's spec.conversion.webhook with webhook (JSON).
func setWebhook(t *testing.T, base, webhook string) {
	t.Helper()
	patch := `{"spec":{"conversion":{"webhook":` + webhook + `}}}`
	if code, out := do(t, http.MethodPatch, base+crdsPath+"/widgets.conv.example.com", patch); code != http.StatusOK {
		t.Fatalf("change the webhook: %d %s", code, out)
	}
}

// tlsConfig serves bundle's serving certificate.
func tlsConfig(bundle *certs.Bundle) (*tls.Config, error) {
	c, err := tls.LoadX509KeyPair(bundle.CertFile(certs.ServingName), bundle.KeyFile(certs.ServingName))
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{c}}, nil
}

// send is do with a Content-Type.
func send(t *testing.T, method, u, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// watchLines opens the watch u and sends each line of it on the returned channel until stop
// is called or the test ends.
func watchLines(t *testing.T, u string) (lines <-chan string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: %d", u, resp.StatusCode)
	}
	out := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case out <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, cancel
}

// resolverFunc is a webhook.ServiceResolver.
type resolverFunc func(namespace, name string, port int32) (*url.URL, error)

func (f resolverFunc) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return f(namespace, name, port)
}

package conversion

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/admission/webhook"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

var (
	thingsV1 = schema.GroupVersion{Group: "t.example.com", Version: "v1"}
	thingsV2 = schema.GroupVersion{Group: "t.example.com", Version: "v2"}
)

// hook is a test conversion webhook on loopback HTTPS: answer turns each request into the
// review to send back (as a JSON object); requests records what came.
type hook struct {
	srv      *httptest.Server
	mu       sync.Mutex
	requests []review
}

// newHook serves answer and returns the converter calling it with review versions.
func newHook(t *testing.T, versions []string, answer func(review) map[string]any) (*Webhook, *hook) {
	t.Helper()
	h := &hook{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var rev review
		if err := json.Unmarshal(body, &rev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.requests = append(h.requests, rev)
		h.mu.Unlock()
		out, _ := json.Marshal(answer(rev))
		_, _ = w.Write(out)
	}))
	t.Cleanup(h.srv.Close)
	url := h.srv.URL + "/convert"
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	return NewWebhook(webhook.NewClient(nil), Config{ClientConfig: admregv1.WebhookClientConfig{URL: &url, CABundle: ca}, ReviewVersions: versions}), h
}

// calls returns the requests received.
func (h *hook) calls() []review {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]review(nil), h.requests...)
}

// converting answers a review by moving every object to the desired version, with edit
// applied to each (as JSON maps).
func converting(edit func(obj map[string]any)) func(review) map[string]any {
	return func(r review) map[string]any {
		var objs []any
		for _, raw := range r.Request.Objects {
			var o map[string]any
			_ = json.Unmarshal(raw, &o)
			o["apiVersion"] = r.Request.DesiredAPIVersion
			if edit != nil {
				edit(o)
			}
			objs = append(objs, o)
		}
		return map[string]any{"apiVersion": r.APIVersion, "kind": "ConversionReview",
			"response": map[string]any{"uid": r.Request.UID, "convertedObjects": objs, "result": map[string]any{"status": "Success"}}}
	}
}

// thing returns a t.example.com Thing in version with name and metadata fields.
func thing(version schema.GroupVersion, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"n": int64(1)}}}
	u.SetGroupVersionKind(version.WithKind("Thing"))
	u.SetName(name)
	u.SetNamespace("ns")
	u.SetUID(types.UID("uid-" + name))
	u.SetResourceVersion("7")
	u.SetLabels(map[string]string{"a": "1"})
	u.SetAnnotations(map[string]string{"note": "x"})
	return u
}

// TestConvertList sends only the items not in the desired version, in one review, and puts
// the converted ones back in place.
func TestConvertList(t *testing.T) {
	w, h := newHook(t, []string{"v1"}, converting(nil))
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": thingsV1.String(), "kind": "ThingList"},
		Items: []unstructured.Unstructured{*thing(thingsV1, "a"), *thing(thingsV2, "b"), *thing(thingsV1, "c")}}
	out, err := w.Convert(list, thingsV2)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*unstructured.UnstructuredList)
	if got.GetAPIVersion() != thingsV2.String() || len(got.Items) != 3 {
		t.Fatalf("converted list: %v", got.Object)
	}
	for i, name := range []string{"a", "b", "c"} {
		if got.Items[i].GetName() != name || got.Items[i].GetAPIVersion() != thingsV2.String() {
			t.Errorf("item %d: %s %s", i, got.Items[i].GetName(), got.Items[i].GetAPIVersion())
		}
	}
	calls := h.calls()
	if len(calls) != 1 || len(calls[0].Request.Objects) != 2 || calls[0].APIVersion != "apiextensions.k8s.io/v1" ||
		calls[0].Request.DesiredAPIVersion != thingsV2.String() || calls[0].Request.UID == "" {
		t.Errorf("reviews sent: %+v", calls)
	}
	if list.GetAPIVersion() != thingsV1.String() || list.Items[0].GetAPIVersion() != thingsV1.String() {
		t.Error("the input list was changed")
	}
	if _, err := w.Convert(thing(thingsV2, "d"), thingsV2); err != nil || len(h.calls()) != 1 {
		t.Errorf("an object in the desired version: %v, %d calls", err, len(h.calls()))
	}
	empty := &unstructured.Unstructured{Object: map[string]any{"apiVersion": thingsV1.String(), "kind": "Thing"}}
	if out, err := w.Convert(empty, thingsV2); err != nil || out.GetObjectKind().GroupVersionKind().Version != "v2" || len(h.calls()) != 1 {
		t.Errorf("an empty object: %v, %d calls", err, len(h.calls()))
	}
}

// TestConvertMetadata keeps the webhook's labels and annotations and the original's other
// metadata, as kube's restoreObjectMeta.
func TestConvertMetadata(t *testing.T) {
	w, _ := newHook(t, []string{"v1"}, converting(func(o map[string]any) {
		m := o["metadata"].(map[string]any)
		m["labels"] = map[string]any{"a": "2", "b": "3"}
		delete(m, "annotations")
		m["resourceVersion"] = "99"
		m["finalizers"] = []any{"x.example.com/f"}
	}))
	out, err := w.Convert(thing(thingsV1, "a"), thingsV2)
	if err != nil {
		t.Fatal(err)
	}
	u := out.(*unstructured.Unstructured)
	if l := u.GetLabels(); len(l) != 2 || l["a"] != "2" || l["b"] != "3" {
		t.Errorf("labels %v, want the webhook's", l)
	}
	if a := u.GetAnnotations(); a != nil {
		t.Errorf("annotations %v, want the webhook's (none)", a)
	}
	if u.GetResourceVersion() != "7" || len(u.GetFinalizers()) != 0 {
		t.Errorf("resourceVersion %s finalizers %v, want the original's", u.GetResourceVersion(), u.GetFinalizers())
	}
}

// TestConvertFailures checks the answers kube refuses, each a 500 Status with kube's message.
func TestConvertFailures(t *testing.T) {
	const prefix = "conversion webhook for t.example.com/v1, Kind=Thing "
	for _, tc := range []struct {
		name     string
		versions []string
		answer   func(review) map[string]any
		want     string
	}{
		{"refused", []string{"v1"}, func(r review) map[string]any {
			return map[string]any{"apiVersion": r.APIVersion, "kind": "ConversionReview",
				"response": map[string]any{"uid": r.Request.UID, "result": map[string]any{"status": "Failure", "message": "cannot convert"}}}
		}, prefix + "failed: cannot convert"},
		{"failed without message", []string{"v1"}, func(r review) map[string]any {
			return map[string]any{"apiVersion": r.APIVersion, "kind": "ConversionReview",
				"response": map[string]any{"uid": r.Request.UID, "result": map[string]any{"status": "Failure"}}}
		}, prefix + "failed: response.result.status was 'Failure', not 'Success'"},
		{"no response", []string{"v1"}, func(r review) map[string]any {
			return map[string]any{"apiVersion": r.APIVersion, "kind": "ConversionReview"}
		}, prefix + "failed: no response provided"},
		{"another review version", []string{"v1"}, func(r review) map[string]any {
			a := converting(nil)(r)
			a["apiVersion"] = "apiextensions.k8s.io/v1beta1"
			return a
		}, prefix + "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview"},
		{"too few objects", []string{"v1"}, func(r review) map[string]any {
			a := converting(nil)(r)
			a["response"].(map[string]any)["convertedObjects"] = []any{}
			return a
		}, prefix + "returned 0 objects, expected 1"},
		{"wrong version", []string{"v1"}, converting(func(o map[string]any) { o["apiVersion"] = "t.example.com/v1" }),
			prefix + "returned invalid object: invalid groupVersion (expected t.example.com/v2, received t.example.com/v1)"},
		{"wrong kind", []string{"v1"}, converting(func(o map[string]any) { o["kind"] = "Other" }),
			prefix + "returned invalid object: invalid kind (expected Thing, received Other)"},
		{"other namespace", []string{"v1"}, converting(func(o map[string]any) { o["metadata"].(map[string]any)["namespace"] = "x" }),
			prefix + "returned invalid object: must have the same namespace: ns != x"},
		{"invalid label", []string{"v1"}, converting(func(o map[string]any) { o["metadata"].(map[string]any)["labels"] = map[string]any{"a": "not valid!"} }),
			prefix + "returned invalid object: metadata.labels: Invalid value"},
		{"no known review version", []string{"v9"}, converting(nil), "no supported conversion review versions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newHook(t, tc.versions, tc.answer)
			_, err := w.Convert(thing(thingsV1, "a"), thingsV2)
			status, ok := err.(apierrors.APIStatus)
			if !ok || status.Status().Code != http.StatusInternalServerError || !strings.HasPrefix(status.Status().Message, tc.want) {
				t.Errorf("got %v, want a 500 %q...", err, tc.want)
			}
		})
	}
}

// TestConvertV1beta1 sends a v1beta1 review when it is listed first, and takes its answer
// without checking uid, as kube.
func TestConvertV1beta1(t *testing.T) {
	w, h := newHook(t, []string{"v1beta1", "v1"}, func(r review) map[string]any {
		a := converting(nil)(r)
		a["response"].(map[string]any)["uid"] = "other"
		return a
	})
	if _, err := w.Convert(thing(thingsV1, "a"), thingsV2); err != nil {
		t.Fatal(err)
	}
	if calls := h.calls(); len(calls) != 1 || calls[0].APIVersion != "apiextensions.k8s.io/v1beta1" {
		t.Errorf("reviews sent: %+v", calls)
	}
}

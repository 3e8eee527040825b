package endpoints

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestStreamObjectErrorBeforeBody: an object that cannot be encoded (its kind is not in the
// scheme, so conversion fails before a byte is written) is answered with a 500
// metav1.Status, not a 200 with an empty or partial body; one that can is streamed with the
// code given.
func TestStreamObjectErrorBeforeBody(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	s := &scope{serializers: newSerializers(SchemeKinds(scheme)),
		kind: schema.GroupVersionKind{Version: "v1", Kind: "Status"}}

	rec := httptest.NewRecorder()
	s.streamObject(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusCreated, mediaJSON, &unregistered{}, false)
	var st metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || rec.Code != http.StatusInternalServerError ||
		st.Kind != "Status" || st.Code != http.StatusInternalServerError {
		t.Errorf("unencodable object: %d %s (%v); want a 500 Status", rec.Code, rec.Body, err)
	}

	rec = httptest.NewRecorder()
	s.streamObject(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusCreated, mediaJSON, &metav1.Status{Status: metav1.StatusSuccess, Message: "ok"}, false)
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || rec.Code != http.StatusCreated || st.Message != "ok" ||
		rec.Header().Get("Content-Type") != mediaJSON {
		t.Errorf("encodable object: %d %v %s (%v); want 201 with its JSON", rec.Code, rec.Header(), rec.Body, err)
	}
}

// unregistered is an object no scheme knows.
type unregistered struct{ metav1.TypeMeta }

func (u *unregistered) DeepCopyObject() runtime.Object { c := *u; return &c }

// BenchmarkStreamObject measures the response of one write or get: a ~1.5 KB object
// converted to the wire version and encoded for a client that accepts gzip (the body is
// held back, below the gzip threshold, and sent with its Content-Length).
func BenchmarkStreamObject(b *testing.B) {
	scheme := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	s := &scope{serializers: newSerializers(SchemeKinds(scheme)),
		kind: schema.GroupVersionKind{Version: "v1", Kind: "Status"}}
	obj := &metav1.Status{Status: metav1.StatusSuccess, Message: strings.Repeat("x", 1500)}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.streamObject(rec, req, http.StatusOK, mediaJSON, obj, false)
		if rec.Code != http.StatusOK || rec.Body.Len() < 1500 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

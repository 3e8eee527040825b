package endpoints

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

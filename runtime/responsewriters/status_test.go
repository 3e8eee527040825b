package responsewriters

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func decodeStatus(t *testing.T, rec *httptest.ResponseRecorder) metav1.Status {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var s metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatalf("body is not a Status: %v\n%s", err, rec.Body)
	}
	if s.Kind != "Status" || s.APIVersion != "v1" {
		t.Errorf("kind/apiVersion = %q/%q, want Status/v1", s.Kind, s.APIVersion)
	}
	if int(s.Code) != rec.Code {
		t.Errorf("status code %d but HTTP %d", s.Code, rec.Code)
	}
	return s
}

func TestWriteError(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		wantCode   int
		wantReason metav1.StatusReason
	}{
		{"api error", apierrors.NewNotFound(schema.GroupResource{Group: "db.example.com", Resource: "databases"}, "x"), http.StatusNotFound, metav1.StatusReasonNotFound},
		{"wrapped api error", fmt.Errorf("cannot get: %w", apierrors.NewConflict(schema.GroupResource{Resource: "databases"}, "x", errors.New("stale"))), http.StatusConflict, metav1.StatusReasonConflict},
		{"plain error", errors.New("boom"), http.StatusInternalServerError, metav1.StatusReasonInternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteError(rec, tc.err)
			s := decodeStatus(t, rec)
			if rec.Code != tc.wantCode || s.Reason != tc.wantReason || s.Status != metav1.StatusFailure {
				t.Errorf("got %d %s %s, want %d %s Failure", rec.Code, s.Reason, s.Status, tc.wantCode, tc.wantReason)
			}
		})
	}
}

func TestServiceErrorHandler(t *testing.T) {
	for code, reason := range map[int]metav1.StatusReason{
		http.StatusNotFound:         metav1.StatusReasonNotFound,
		http.StatusMethodNotAllowed: metav1.StatusReasonMethodNotAllowed,
	} {
		rec := httptest.NewRecorder()
		ServiceErrorHandler(restful.NewError(code, "routing"), nil, restful.NewResponse(rec))
		if s := decodeStatus(t, rec); rec.Code != code || s.Reason != reason {
			t.Errorf("routing error %d: got %d %s, want %s", code, rec.Code, s.Reason, reason)
		}
	}
}

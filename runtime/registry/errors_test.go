package registry

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
)

func TestInterpretError(t *testing.T) {
	gr := schema.GroupResource{Group: "test.apigen.dev", Resource: "widgets"}
	cases := []struct {
		err    error
		code   int32
		reason metav1.StatusReason
	}{
		{storage.NewKeyNotFoundError("/a/x", 0), 404, metav1.StatusReasonNotFound},
		{storage.NewKeyExistsError("/a/x", 0), 409, metav1.StatusReasonAlreadyExists},
		{storage.NewConflictError("/a/x", 0, "changed"), 409, metav1.StatusReasonConflict},
		{storage.NewExpiredError(1, "too old"), 410, metav1.StatusReasonExpired},
		{storage.NewUnreachableError("/a/x", errors.New("down")), 503, metav1.StatusReasonServiceUnavailable},
		{storage.NewInvalidObjError("/a/x", "bad token"), 400, metav1.StatusReasonBadRequest},
		{storage.NewInternalError("boom"), 500, metav1.StatusReasonInternalError},
		{context.DeadlineExceeded, 504, metav1.StatusReasonTimeout},
		{storage.NewTimeoutError("/a/x", true, context.DeadlineExceeded), 504, metav1.StatusReasonTimeout},
		{storage.NewResourceVersionTooLargeError(10, 5), 504, metav1.StatusReasonTimeout},
		{storage.NewRequestTooLargeError("/a/x", errors.New("etcdserver: request is too large")), 413, metav1.StatusReasonRequestEntityTooLarge},
		{errors.New("other"), 500, metav1.StatusReasonInternalError},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), 403, metav1.StatusReasonForbidden},
	}
	for _, tc := range cases {
		err := interpretError(tc.err, gr, "x")
		var status apierrors.APIStatus
		if !errors.As(err, &status) || status.Status().Code != tc.code || status.Status().Reason != tc.reason {
			t.Errorf("%v: got %v, want %d %s", tc.err, err, tc.code, tc.reason)
		}
	}
	if err := interpretError(storage.NewKeyNotFoundError("/a/x", 0), gr, "x"); err.Error() != `widgets.test.apigen.dev "x" not found` {
		t.Errorf("NotFound message: %q", err.Error())
	}
	var expired *apierrors.StatusError
	if err := interpretError(storage.NewInconsistentContinueError("token", "too old"), gr, ""); !errors.As(err, &expired) ||
		expired.ErrStatus.Code != 410 || expired.ErrStatus.ListMeta.Continue != "token" {
		t.Errorf("inconsistent continue: got %#v, want 410 with metadata.continue %q", err, "token")
	}
	unknown := interpretError(storage.NewTimeoutError("/a/x", true, context.DeadlineExceeded), gr, "x")
	if want := "Timeout: request did not complete within the allotted timeout; the write may have been applied"; unknown.Error() != want {
		t.Errorf("unknown outcome message: %q, want %q", unknown.Error(), want)
	}
	tooLarge := interpretError(storage.NewResourceVersionTooLargeError(10, 5), gr, "")
	if st := tooLarge.(apierrors.APIStatus).Status(); st.Details == nil || st.Details.RetryAfterSeconds != 1 ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge ||
		st.Message != "Timeout: Too large resource version: 10, current: 5" {
		t.Errorf("too large resourceVersion: %+v, want kube's cause, message and Retry-After 1", st)
	}
	if interpretError(nil, gr, "x") != nil {
		t.Error("nil error became non-nil")
	}
}

package endpoints

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// failing is a convertor whose every conversion fails with err.
type failing struct {
	runtime.ObjectConvertor
	err error
}

func (f failing) ConvertToVersion(runtime.Object, runtime.GroupVersioner) (runtime.Object, error) {
	return nil, f.err
}

// TestFailedConversionStatus: a failed conversion is the Status kube-apiserver answers a
// failing conversion webhook with (500, no reason, "conversion webhook for <gvk> failed:
// <err>"), naming the object; an error already in that wording keeps its message.
func TestFailedConversionStatus(t *testing.T) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("chores.example.com/v2")
	obj.SetKind("Chore")
	obj.SetName("late")
	c := failedConversions{ObjectConvertor: failing{err: errors.New("spec.hour 25 is no hour")}}
	_, err := c.ConvertToVersion(obj, runtime.InternalGroupVersioner)
	want := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 500,
		Message: "conversion webhook for chores.example.com/v2, Kind=Chore failed: spec.hour 25 is no hour",
		Details: &metav1.StatusDetails{Name: "late", Group: "chores.example.com", Kind: "Chore"}}
	if diff := cmp.Diff(want, responsewriters.ErrorStatus(err)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	webhook := errors.New("conversion webhook for chores.example.com/v2, Kind=Chore failed: Post \"https://hook\": refused")
	_, err = failedConversions{ObjectConvertor: failing{err: webhook}}.ConvertToVersion(obj, runtime.InternalGroupVersioner)
	if got := responsewriters.ErrorStatus(err); got.Code != 500 || got.Message != webhook.Error() {
		t.Errorf("webhook error status = %d %q, want 500 %q", got.Code, got.Message, webhook)
	}
}

package registry_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/request"
)

// TestCreateOnlyStore: a create is validated by the strategy (422), takes the request's
// namespace (400 for another), and is answered by Respond, or 500 without one.
func TestCreateOnlyStore(t *testing.T) {
	s := &registry.CreateOnlyStore{
		NewFunc:                  func() runtime.Object { return &testapi.Widget{} },
		DefaultQualifiedResource: schema.GroupResource{Group: "test.apigen.dev", Resource: "widgets"},
		Strategy:                 testapi.WidgetStrategy{},
	}
	ctx := request.WithNamespace(context.Background(), "a")
	if _, err := s.Create(ctx, &testapi.Widget{}, &metav1.CreateOptions{}); !apierrors.IsInternalError(err) ||
		!strings.Contains(err.Error(), "the server does not answer widgets.test.apigen.dev") {
		t.Errorf("without Respond: %v", err)
	}
	s.Respond = func(_ context.Context, obj runtime.Object) (runtime.Object, error) {
		w := obj.(*testapi.Widget)
		w.Status.Phase = "answered in " + w.Namespace
		return w, nil
	}
	obj, err := s.Create(ctx, &testapi.Widget{}, &metav1.CreateOptions{})
	if err != nil || obj.(*testapi.Widget).Status.Phase != "answered in a" {
		t.Errorf("answer: %v %+v", err, obj)
	}
	if _, err := s.Create(ctx, &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "b"}}, &metav1.CreateOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("another namespace: %v", err)
	}
	bad := &testapi.Widget{Spec: testapi.WidgetSpec{Size: -1}}
	if _, err := s.Create(ctx, bad, &metav1.CreateOptions{}); !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), `Widget.test.apigen.dev "" is invalid`) {
		t.Errorf("invalid: %v", err)
	}
}

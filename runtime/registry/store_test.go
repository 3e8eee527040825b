package registry_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// newStores starts etcd and returns the test group's stores over it.
func newStores(t *testing.T) *install.Stores {
	t.Helper()
	client, _ := etcdtest.Run(t)
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	stores, err := install.NewStores(scheme, &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	return stores
}

func nsCtx(ns string) context.Context {
	return request.WithNamespace(context.Background(), ns)
}

func widget(name string, size int32) *testapi.Widget {
	return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: testapi.WidgetSpec{Size: size, Color: "red"}}
}

// replace is a rest.UpdatedObjectInfo that writes obj whatever is stored.
type replace struct{ obj runtime.Object }

func (r replace) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return r.obj.DeepCopyObject(), nil
}

// mutate is a rest.UpdatedObjectInfo that changes the stored object.
type mutate func(*testapi.Widget)

func (f mutate) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	w := old.(*testapi.Widget)
	f(w)
	return w, nil
}

func mustCreate(t *testing.T, s *registry.Store, ctx context.Context, obj runtime.Object) *testapi.Widget {
	t.Helper()
	out, err := s.Create(ctx, obj, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return out.(*testapi.Widget)
}

func TestCreateGetAlreadyExists(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("team-a")
	created := mustCreate(t, s, ctx, widget("w1", 3))
	if created.UID == "" || created.CreationTimestamp.IsZero() || created.ResourceVersion == "" ||
		created.Namespace != "team-a" || created.Generation != 1 {
		t.Errorf("created object lacks server-set metadata: %+v", created.ObjectMeta)
	}
	got, err := s.Get(ctx, "w1", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.(*testapi.Widget).UID != created.UID {
		t.Errorf("Get returned uid %q, want %q", got.(*testapi.Widget).UID, created.UID)
	}
	_, err = s.Create(ctx, widget("w1", 3), nil)
	if !apierrors.IsAlreadyExists(err) {
		t.Errorf("second Create: got %v, want AlreadyExists", err)
	}
	if _, err := s.Get(nsCtx("team-b"), "w1", nil); !apierrors.IsNotFound(err) {
		t.Errorf("Get in another namespace: got %v, want NotFound", err)
	} else if want := `widgets.test.apigen.dev "w1" not found`; err.Error() != want {
		t.Errorf("NotFound message %q, want %q", err.Error(), want)
	}
}

func TestCreateRejects(t *testing.T) {
	s := newStores(t).Widgets
	withRV := widget("rv", 1)
	withRV.ResourceVersion = "5"
	otherNS := widget("ns", 1)
	otherNS.Namespace = "team-b"
	cases := []struct {
		name    string
		ctx     context.Context
		obj     *testapi.Widget
		check   func(error) bool
		wantMsg string
	}{
		{"no namespace", context.Background(), widget("a", 1), apierrors.IsBadRequest, "namespace is required"},
		{"namespace mismatch", nsCtx("team-a"), otherNS, apierrors.IsBadRequest, "does not match the namespace"},
		{"resourceVersion set", nsCtx("team-a"), withRV, apierrors.IsBadRequest, "resourceVersion should not be set"},
		{"no name", nsCtx("team-a"), widget("", 1), apierrors.IsInvalid, "metadata.name: Required value"},
		{"bad name", nsCtx("team-a"), widget("Bad_Name", 1), apierrors.IsInvalid, "metadata.name: Invalid value"},
		{"path name", nsCtx("team-a"), widget("..", 1), apierrors.IsInvalid, "metadata.name"},
		{"strategy", nsCtx("team-a"), widget("big", 500), apierrors.IsInvalid, "spec.size: Invalid value: 500"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Create(tc.ctx, tc.obj, nil)
			if !tc.check(err) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("got %v, want an error containing %q", err, tc.wantMsg)
			}
		})
	}
	_, err := s.Create(nsCtx("team-a"), widget("big", 500), nil)
	status := err.(apierrors.APIStatus).Status()
	if status.Code != 422 || status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0].Field != "spec.size" {
		t.Errorf("422 status lacks the field cause: %+v", status)
	}
}

func TestGenerateName(t *testing.T) {
	s := newStores(t).Widgets
	obj := widget("", 1)
	obj.GenerateName = "gen-"
	a := mustCreate(t, s, nsCtx("ns"), obj.DeepCopyObject())
	b := mustCreate(t, s, nsCtx("ns"), obj.DeepCopyObject())
	if !strings.HasPrefix(a.Name, "gen-") || len(a.Name) != len("gen-")+5 || a.Name == b.Name {
		t.Errorf("generated names %q and %q", a.Name, b.Name)
	}
}

func TestClusterScoped(t *testing.T) {
	s := newStores(t).Gadgets
	g := &testapi.Gadget{ObjectMeta: metav1.ObjectMeta{Name: "g1"}, Spec: testapi.GadgetSpec{Owner: "me"}}
	if _, err := s.Create(context.Background(), g, nil); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := s.Get(context.Background(), "g1", nil)
	if err != nil || got.(*testapi.Gadget).Spec.Owner != "me" || got.(*testapi.Gadget).Namespace != "" {
		t.Fatalf("Get: %v, %+v", err, got)
	}
	_, err = s.Create(context.Background(), &testapi.Gadget{ObjectMeta: metav1.ObjectMeta{Name: "g2"}}, nil)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.owner: Required value") {
		t.Errorf("Create without owner: %v", err)
	}
}

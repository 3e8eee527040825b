package registry_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/memory"
)

// host is a registry.StorageFactory and UserStorageHost that records what it is given.
type host struct {
	def     storage.Interface
	log     *slog.Logger
	closers []io.Closer
}

func (h *host) NewStorage(schema.GroupResource, schema.GroupVersion, *runtime.Scheme, func() runtime.Object) (storage.Interface, error) {
	return h.def, nil
}
func (h *host) Logger() *slog.Logger        { return h.log }
func (h *host) CloseAtShutdown(c io.Closer) { h.closers = append(h.closers, c) }

// closer is an empty storage that is an io.Closer.
type closer struct{ storage.Interface }

func (*closer) Close() error { return nil }

var widgets = schema.GroupResource{Group: testapi.GroupName, Resource: "widgets"}

// TestNewUserStorage: the constructor of a kind's own storage gets the storage version's
// codec (internal objects in, v1 JSON out, and back), the server's storage as Default and its
// logger; a storage that is an io.Closer is closed at shutdown; a failing constructor's error
// names the resource.
func TestNewUserStorage(t *testing.T) {
	t.Parallel()
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	h := &host{def: &closer{}, log: slog.New(slog.DiscardHandler)}
	cfg := registry.UserStorageConfig{Resource: widgets, StorageVersion: v1.SchemeGroupVersion,
		NewFunc: func() runtime.Object { return &testapi.Widget{} }, NewListFunc: func() runtime.Object { return &testapi.WidgetList{} }}
	var got registry.UserStorageConfig
	st, err := registry.NewUserStorage(h, scheme, cfg, func(c registry.UserStorageConfig) (storage.Interface, error) {
		got = c
		return &closer{memory.New(c.Codec, c.NewFunc, c.Resource)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.closers) != 1 || h.closers[0] != io.Closer(st.(*closer)) {
		t.Errorf("closers at shutdown = %v, want the storage", h.closers)
	}
	if got.Logger != h.log {
		t.Errorf("Logger is not the server's")
	}
	if def, err := got.Default(); err != nil || def != h.def {
		t.Errorf("Default() = %v, %v; want the server's storage", def, err)
	}
	var buf bytes.Buffer
	if err := got.Codec.Encode(&testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: testapi.WidgetSpec{Size: 3}}, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"apiVersion":"test.apigen.dev/v1"`) {
		t.Errorf("encoded widget %s, want the storage version's JSON", buf.String())
	}
	back, _, err := got.Codec.Decode(buf.Bytes(), nil, &testapi.Widget{})
	if w, ok := back.(*testapi.Widget); err != nil || !ok || w.Name != "w" || w.Spec.Size != 3 {
		t.Errorf("decoded %#v, %v; want the internal widget w of size 3", back, err)
	}
	_, err = registry.NewUserStorage(h, scheme, cfg, func(registry.UserStorageConfig) (storage.Interface, error) {
		return nil, errors.New("no database")
	})
	if err == nil || err.Error() != "cannot create the storage of widgets.test.apigen.dev: no database" {
		t.Errorf("failing constructor: %v", err)
	}
}

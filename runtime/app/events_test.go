package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	eventsv1 "github.com/apigen-dev/apigen/runtime/apis/events/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestCohabitingEvents checks the events.k8s.io storage over the core one on a real etcd:
// an Event written through either is one object under /registry/events, read through the
// other with kube's field mapping; lists select on events.k8s.io's field names; watches,
// updates and deletes through events.k8s.io see events.k8s.io objects.
func TestCohabitingEvents(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	scheme := runtime.NewScheme()
	coreinstall.Install(scheme)
	core, err := (&etcd3.StorageFactory{Client: client, Prefix: "/registry"}).NewStorage(corev1.Resource("events"),
		corev1.SchemeGroupVersion, scheme, func() runtime.Object { return &corev1.Event{} })
	if err != nil {
		t.Fatal(err)
	}
	modern, err := cohabitingEvents{core}.NewStorage(eventsv1.Resource("events"), eventsv1.SchemeGroupVersion, scheme, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := modern.Watch(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	in := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Note: "hello", Reason: "Why",
		Regarding: eventsv1.ObjectReference{Kind: "Database", Name: "orders"}}
	out := &eventsv1.Event{}
	if err := modern.Create(ctx, "/ns/a", in, out); err != nil {
		t.Fatal(err)
	}
	if out.Note != "hello" || out.ResourceVersion == "" {
		t.Errorf("created %+v", out)
	}
	raw, err := client.Get(ctx, "/registry/events/ns/a")
	if err != nil || len(raw.Kvs) != 1 {
		t.Fatalf("raw read of /registry/events/ns/a: %v", err)
	}
	stored := &corev1.Event{}
	if err := core.Get(ctx, "/ns/a", storage.GetOptions{}, stored); err != nil {
		t.Fatal(err)
	}
	if stored.Message != "hello" || stored.InvolvedObject.Name != "orders" || stored.ResourceVersion != out.ResourceVersion {
		t.Errorf("core/v1 read of the events.k8s.io Event: %+v", stored)
	}

	sel := func(s string) storage.ListOptions {
		fs := fields.ParseSelectorOrDie(s)
		return storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Field: fs,
			GetAttrs: func(obj runtime.Object) (labels.Set, fields.Set, error) {
				_, f, _ := registry.GetAttrs(obj)
				for k, v := range eventsv1.EventFields(obj.(*eventsv1.Event)) {
					f[k] = v
				}
				return nil, f, nil
			}}}
	}
	for s, want := range map[string]int{"regarding.name=orders": 1, "regarding.name=other": 0} {
		list := &eventsv1.EventList{}
		if err := modern.GetList(ctx, "/ns/", sel(s), list); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != want || list.ResourceVersion == "" {
			t.Errorf("list %s: %d items (rv %q), want %d", s, len(list.Items), list.ResourceVersion, want)
		}
	}

	err = modern.GuaranteedUpdate(ctx, "/ns/a", out, false, nil, func(input runtime.Object) (runtime.Object, error) {
		e := input.(*eventsv1.Event).DeepCopy()
		e.Note = "changed"
		return e, nil
	})
	if err != nil || out.Note != "changed" {
		t.Fatalf("update: %v, %+v", err, out)
	}
	if err := modern.Delete(ctx, "/ns/a", &eventsv1.Event{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	var notes []string
	timeout := time.After(10 * time.Second)
	for len(notes) < 3 {
		select {
		case ev := <-w.ResultChan():
			e, ok := ev.Object.(*eventsv1.Event)
			if !ok {
				t.Fatalf("watch event %s of %T, want *eventsv1.Event", ev.Type, ev.Object)
			}
			notes = append(notes, string(ev.Type)+" "+e.Note)
		case <-timeout:
			t.Fatalf("watch: %v after 10s", notes)
		}
	}
	if want := []string{string(watch.Added) + " hello", string(watch.Modified) + " changed", string(watch.Deleted) + " changed"}; notes[0] != want[0] || notes[1] != want[1] || notes[2] != want[2] {
		t.Errorf("watch: %q, want %q", notes, want)
	}
}

// TestEventsRuntimeConfig checks --runtime-config for Events: events.k8s.io/v1=false leaves
// the core group's Events alone; api/v1=false leaves events.k8s.io/v1 over the same storage.
func TestEventsRuntimeConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config       string
		core, events int // the status of a list through each API
	}{
		{"events.k8s.io/v1=false", http.StatusOK, http.StatusNotFound},
		{"api/v1=false", http.StatusNotFound, http.StatusOK},
	} {
		url, _ := startArgs(t, []string{"--plain-http", "--runtime-config=" + tc.config}, testGroup)
		if code, body := httpGet(t, url+"/api/v1/events"); code != tc.core {
			t.Errorf("%s: GET /api/v1/events: %d %s, want %d", tc.config, code, body, tc.core)
		}
		if code, body := httpGet(t, url+"/apis/events.k8s.io/v1/events"); code != tc.events {
			t.Errorf("%s: GET /apis/events.k8s.io/v1/events: %d %s, want %d", tc.config, code, body, tc.events)
		}
	}
}

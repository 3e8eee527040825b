package registry_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// computedWidgets is a user's read-only REST: Get, List (every namespace, no selectors
// applied) and Watch from a channel the test feeds.
type computedWidgets struct {
	items  []testapi.Widget
	events *watch.FakeWatcher
	listRV string // the lists' resourceVersion
}

func (c *computedWidgets) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	for i := range c.items {
		if c.items[i].Name == name {
			return c.items[i].DeepCopyObject(), nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "widgets"}, name)
}

func (c *computedWidgets) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	l := &testapi.WidgetList{}
	l.ResourceVersion = c.listRV
	for i := range c.items {
		l.Items = append(l.Items, *c.items[i].DeepCopyObject().(*testapi.Widget))
	}
	return l, nil
}

func (c *computedWidgets) Watch(context.Context, *metainternalversion.ListOptions) (watch.Interface, error) {
	return c.events, nil
}

// getOnly implements Get alone (its List is not rest.Lister's: not a verb).
type getOnly struct{}

func (getOnly) Get(context.Context, string, *metav1.GetOptions) (runtime.Object, error) {
	return &testapi.Widget{}, nil
}

func (getOnly) List() {}

func labeled(ns, name, tier string, size int32) testapi.Widget {
	w := widget(name, size)
	w.Namespace, w.Labels = ns, map[string]string{"tier": tier}
	return *w
}

func newUserREST(rest *computedWidgets) *registry.UserREST {
	return &registry.UserREST{
		REST:                     rest,
		NewFunc:                  func() runtime.Object { return &testapi.Widget{} },
		NewListFunc:              func() runtime.Object { return &testapi.WidgetList{} },
		DefaultQualifiedResource: schema.GroupResource{Group: "test.example.com", Resource: "widgets"},
		Namespaced:               true,
		SelectableFields:         []string{"spec.color"},
	}
}

func TestUserRESTVerbs(t *testing.T) {
	t.Parallel()
	u := newUserREST(&computedWidgets{})
	if got, want := u.Verbs(), []string{"get", "list", "watch"}; !equal(got, want) {
		t.Errorf("Verbs() = %v, want %v", got, want)
	}
	u.AllowedVerbs = []string{"get", "list", "create"}
	if got, want := u.Verbs(), []string{"get", "list"}; !equal(got, want) {
		t.Errorf("Verbs() with AllowedVerbs = %v, want %v", got, want)
	}
	g := &registry.UserREST{REST: getOnly{}}
	if got, want := g.Verbs(), []string{"get"}; !equal(got, want) {
		t.Errorf("Verbs() of a Get-only REST = %v, want %v", got, want)
	}
	if _, err := g.List(context.Background(), nil); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("List of a Get-only REST: %v, want 405 MethodNotSupported", err)
	}
	if _, err := u.Create(context.Background(), &testapi.Widget{}, nil); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("Create of a read-only REST: %v, want 405 MethodNotSupported", err)
	}
}

func TestUserRESTListSelects(t *testing.T) {
	t.Parallel()
	u := newUserREST(&computedWidgets{items: []testapi.Widget{
		labeled("a", "w1", "web", 1), labeled("a", "w2", "db", 2), labeled("b", "w1", "web", 3),
	}})
	cases := []struct {
		name string
		ctx  context.Context
		opts *metainternalversion.ListOptions
		want []string
	}{
		{"all namespaces", context.Background(), nil, []string{"a/w1", "a/w2", "b/w1"}},
		{"namespace", nsCtx("a"), nil, []string{"a/w1", "a/w2"}},
		{"label", context.Background(), &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "web"})}, []string{"a/w1", "b/w1"}},
		{"name field", nsCtx("a"), &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "w2")}, []string{"a/w2"}},
		{"selectable field", context.Background(), &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.color", "blue")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := u.List(tc.ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(t, l); !equal(got, tc.want) {
				t.Errorf("List = %v, want %v", got, tc.want)
			}
		})
	}
	_, err := u.List(context.Background(), &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.size", "1")})
	if !apierrors.IsBadRequest(err) || err.Error() != "field label not supported: spec.size" {
		t.Errorf("List selecting an unsupported field: %v, want 400 field label not supported: spec.size", err)
	}
}

func TestUserRESTWatchSelects(t *testing.T) {
	t.Parallel()
	rest := &computedWidgets{events: watch.NewFakeWithChanSize(8, false), items: []testapi.Widget{
		labeled("a", "w1", "db", 1), labeled("a", "w2", "web", 2)}}
	u := newUserREST(rest)
	w, err := u.Watch(nsCtx("a"), &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "web"})})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	web, db, other := labeled("a", "w1", "web", 1), labeled("a", "w1", "db", 2), labeled("b", "w9", "web", 3)
	rest.events.Add(&other)  // another namespace: dropped
	rest.events.Modify(&web) // first seen matching: ADDED
	rest.events.Modify(&web) // MODIFIED
	rest.events.Modify(&db)  // stops matching: DELETED
	rest.events.Modify(&db)  // still not matching: dropped
	rest.events.Action(watch.Bookmark, &testapi.Widget{})
	expectEvents(t, w, watch.Added, watch.Modified, watch.Deleted, watch.Bookmark)
	w.Stop()
	for range w.ResultChan() {
	}
	if !rest.events.IsStopped() {
		t.Error("Stop did not stop the user's watch")
	}
}

// TestUserRESTWatchReplaysFromResourceVersion: a watch from a client's resourceVersion
// replays what followed it, while the list its selection starts from is the present. An
// object that started matching in the replay is ADDED (the client did not have it), not
// MODIFIED because the present list has it matching; after the list's resourceVersion the
// list is what was sent, so leaving the selection is DELETED.
func TestUserRESTWatchReplaysFromResourceVersion(t *testing.T) {
	t.Parallel()
	at := func(w testapi.Widget, rv string) *testapi.Widget { w.ResourceVersion = rv; return &w }
	rest := &computedWidgets{events: watch.NewFakeWithChanSize(8, false), listRV: "5",
		items: []testapi.Widget{*at(labeled("a", "w1", "web", 1), "4")}}
	u := newUserREST(rest)
	w, err := u.Watch(nsCtx("a"), &metainternalversion.ListOptions{ResourceVersion: "3",
		LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "web"})})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rest.events.Add(at(labeled("a", "w1", "web", 1), "4"))    // relabelled at 4, replayed: ADDED
	rest.events.Modify(at(labeled("a", "w1", "web", 2), "6")) // MODIFIED
	rest.events.Modify(at(labeled("a", "w1", "db", 2), "7"))  // leaves: DELETED
	expectEvents(t, w, watch.Added, watch.Modified, watch.Deleted)
}

// expectEvents reads the next events of w and fails t unless they have the types want.
func expectEvents(t *testing.T, w watch.Interface, want ...watch.EventType) {
	t.Helper()
	for i, typ := range want {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != typ {
				t.Fatalf("event %d = %s %v, want %s", i, ev.Type, ev.Object, typ)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event %d (%s)", i, typ)
		}
	}
}

// tabled is a REST with its own table.
type tabled struct{ getOnly }

func (tabled) ConvertToTable(context.Context, runtime.Object, runtime.Object) (*metav1.Table, error) {
	return &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Own"}}}, nil
}

func TestUserRESTTable(t *testing.T) {
	t.Parallel()
	w := labeled("a", "w1", "web", 1)
	u := &registry.UserREST{REST: getOnly{}}
	table, err := u.ConvertToTable(context.Background(), &w, nil)
	if err != nil || len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[0].Name != "Name" {
		t.Errorf("table of a REST without its own: %v %+v, want NAME and AGE", err, table)
	}
	u.REST = tabled{}
	table, err = u.ConvertToTable(context.Background(), &w, nil)
	if err != nil || len(table.ColumnDefinitions) != 1 || table.ColumnDefinitions[0].Name != "Own" {
		t.Errorf("table of a REST with its own: %v %+v, want its Own column", err, table)
	}
}

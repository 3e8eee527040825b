package registry_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

func names(t *testing.T, obj interface{}) []string {
	t.Helper()
	var out []string
	for _, w := range obj.(*testapi.WidgetList).Items {
		out = append(out, w.Namespace+"/"+w.Name)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestListSelectorsAndPaging(t *testing.T) {
	s := newStores(t).Widgets
	for _, item := range []struct{ ns, name, tier string }{
		{"a", "w1", "web"}, {"a", "w2", "db"}, {"a", "w3", "web"}, {"b", "w1", "web"},
	} {
		w := widget(item.name, 1)
		w.Labels = map[string]string{"tier": item.tier}
		mustCreate(t, s, nsCtx(item.ns), w)
	}
	cases := []struct {
		name string
		ctx  context.Context
		opts metainternalversion.ListOptions
		want []string
	}{
		{"namespace", nsCtx("a"), metainternalversion.ListOptions{}, []string{"a/w1", "a/w2", "a/w3"}},
		{"all namespaces", context.Background(), metainternalversion.ListOptions{}, []string{"a/w1", "a/w2", "a/w3", "b/w1"}},
		{"label", nsCtx("a"), metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "web"})}, []string{"a/w1", "a/w3"}},
		{"name field", context.Background(), metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "w1")}, []string{"a/w1", "b/w1"}},
		{"namespace field", context.Background(), metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.namespace", "b")}, []string{"b/w1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list, err := s.List(tc.ctx, &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(t, list); !equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	_, err := s.List(nsCtx("a"), &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.size", "1")})
	if !apierrors.IsBadRequest(err) || err.Error() != "field label not supported: spec.size" {
		t.Errorf("unsupported field: %v", err)
	}

	page, err := s.List(context.Background(), &metainternalversion.ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	cont := page.(*testapi.WidgetList).Continue
	if got := names(t, page); len(got) != 3 || cont == "" {
		t.Fatalf("first page %v, continue %q", got, cont)
	}
	rest, err := s.List(context.Background(), &metainternalversion.ListOptions{Limit: 3, Continue: cont})
	if err != nil || !equal(names(t, rest), []string{"b/w1"}) {
		t.Errorf("second page: %v %v", err, rest)
	}
	if _, err := s.List(context.Background(), &metainternalversion.ListOptions{Limit: 3, Continue: "garbage"}); !apierrors.IsBadRequest(err) {
		t.Errorf("bad continue token: %v", err)
	}

	deleted, err := s.DeleteCollection(nsCtx("a"), nil, &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "web"})})
	if err != nil || !equal(names(t, deleted), []string{"a/w1", "a/w3"}) {
		t.Fatalf("DeleteCollection: %v %v", err, deleted)
	}
	left, _ := s.List(context.Background(), nil)
	if got := names(t, left); !equal(got, []string{"a/w2", "b/w1"}) {
		t.Errorf("after DeleteCollection: %v", got)
	}
}

func TestWatch(t *testing.T) {
	s := newStores(t).Widgets
	ctx, cancel := context.WithTimeout(nsCtx("a"), 30*time.Second)
	defer cancel()
	first := mustCreate(t, s, nsCtx("a"), widget("w0", 1))
	w, err := s.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustCreate(t, s, nsCtx("b"), widget("elsewhere", 1))
	mustCreate(t, s, nsCtx("a"), widget("w1", 1))
	if _, _, err := s.Update(nsCtx("a"), "w1", mutate(func(w *testapi.Widget) { w.Spec.Size = 2 }), false, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(nsCtx("a"), "w1", nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != want || ev.Object.(*testapi.Widget).Name != "w1" {
				t.Fatalf("got %s %v, want %s of w1", ev.Type, ev.Object, want)
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", want)
		}
	}
}

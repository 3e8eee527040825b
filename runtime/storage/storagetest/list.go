package storagetest

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

func testList(t *testing.T, b Backend) {
	s := b.New(t)
	var last *testapi.Widget
	for _, n := range []string{"c", "a", "b"} {
		last = create(t, s, "ns1", n, "red", nil)
	}
	create(t, s, "ns2", "z", "red", nil)
	got := list(t, s, "/ns1/", storage.ListOptions{})
	if diff := cmp.Diff([]string{"a", "b", "c"}, names(got)); diff != "" {
		t.Errorf("list of ns1 (-want +got):\n%s", diff)
	}
	if got.ResourceVersion == "" || got.Continue != "" || got.RemainingItemCount != nil {
		t.Errorf("unpaged list metadata: %+v; want a resourceVersion only", got.ListMeta)
	}
	if all := list(t, s, "/", storage.ListOptions{}); len(all.Items) != 4 {
		t.Errorf("list of everything: got %v, want 4 items", names(all))
	}
	for _, w := range got.Items {
		if w.ResourceVersion == "" {
			t.Errorf("list item %s has no resourceVersion", w.Name)
		}
	}
	exact := list(t, s, "/ns1/", storage.ListOptions{ResourceVersion: last.ResourceVersion, ResourceVersionMatch: "Exact"})
	if exact.ResourceVersion != last.ResourceVersion || len(exact.Items) != 3 {
		t.Errorf("Exact list at %s: rv %s, items %v", last.ResourceVersion, exact.ResourceVersion, names(exact))
	}
	eventually(t, true, func() string { // any state: a cache may lag, but not for long
		if any := list(t, s, "/ns1/", storage.ListOptions{ResourceVersion: "0"}); len(any.Items) != 3 {
			return fmt.Sprintf("list at resourceVersion 0: got %v, want 3 items", names(any))
		}
		return ""
	})
}

func testListPagedConsistent(t *testing.T, b Backend) {
	s := b.New(t)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		create(t, s, "ns", n, "red", nil)
	}
	first := list(t, s, "/ns/", storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 2}})
	if diff := cmp.Diff([]string{"a", "b"}, names(first)); diff != "" {
		t.Fatalf("first page (-want +got):\n%s", diff)
	}
	if first.Continue == "" || first.RemainingItemCount == nil || *first.RemainingItemCount != 3 {
		t.Fatalf("first page metadata: %+v; want a continue token and 3 remaining", first.ListMeta)
	}
	// Writes between pages must not show in later pages.
	create(t, s, "ns", "bb", "red", nil)
	update(t, s, "ns", "d", func(w *testapi.Widget) { w.Spec.Color = "blue" })
	all, token := names(first), first.Continue
	for token != "" {
		page := list(t, s, "/ns/", storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 2, Continue: token}})
		if page.ResourceVersion != first.ResourceVersion {
			t.Errorf("page resourceVersion %s, want the first page's %s", page.ResourceVersion, first.ResourceVersion)
		}
		for _, w := range page.Items {
			if w.Spec.Color != "red" {
				t.Errorf("page shows %s as %s, a write made after the first page", w.Name, w.Spec.Color)
			}
		}
		all, token = append(all, names(page)...), page.Continue
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e"}, all); diff != "" {
		t.Errorf("all pages (-want +got):\n%s", diff)
	}
}

func testListContinueTampered(t *testing.T, b Backend) {
	s := b.New(t)
	create(t, s, "ns", "a", "red", nil)
	tokens := map[string]string{
		"not base64":    "%%%",
		"not json":      base64.RawURLEncoding.EncodeToString([]byte("{")),
		"escape":        base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"../../other/"}`)),
		"unclean":       base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"ns/./a"}`)),
		"wrong version": base64.RawURLEncoding.EncodeToString([]byte(`{"v":"v2","rv":1,"start":"ns/a"}`)),
		"zero rv":       base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":0,"start":"ns/a"}`)),
	}
	for name, token := range tokens {
		opts := storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 1, Continue: token}}
		err := s.GetList(testContext(t), "/", opts, &testapi.WidgetList{})
		if !storage.IsInvalidObj(err) {
			t.Errorf("%s token: got %v, want InvalidObj", name, err)
		}
	}
}

func testListContinueExpired(t *testing.T, b Backend) {
	if b.Compact == nil {
		t.Skip("backend cannot compact")
	}
	s := b.New(t)
	for _, n := range []string{"a", "b", "c"} {
		create(t, s, "ns", n, "red", nil)
	}
	first := list(t, s, "/ns/", storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 1}})
	update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Size = 9 })
	b.Compact(t)
	opts := storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 1, Continue: first.Continue}}
	err := s.GetList(testContext(t), "/ns/", opts, &testapi.WidgetList{})
	if !storage.IsExpired(err) || !strings.Contains(err.Error(), "The provided continue parameter is too old") {
		t.Fatalf("continue after compaction: got %v, want Expired with Kubernetes' message", err)
	}
	// The error carries a token that goes on from where the first page stopped, at the latest
	// revision (an inconsistent list: later pages show what is stored now).
	var se *storage.StatusError
	if !errors.As(err, &se) || se.Continue == "" || !strings.Contains(se.Message, "use the continue token in this response") {
		t.Fatalf("continue after compaction: got %#v, want a continue token to go on with", err)
	}
	opts.Predicate.Continue = se.Continue
	opts.Predicate.Limit = 0
	rest := list(t, s, "/ns/", opts)
	if names := names(rest); strings.Join(names, ",") != "b,c" {
		t.Errorf("list with the inconsistent continue token: %v, want b,c", names)
	}
}

func testListLabelSelector(t *testing.T, b Backend) {
	s := b.New(t)
	for i, n := range []string{"a", "b", "c", "d", "e", "f"} {
		color := "blue"
		if i%3 == 2 {
			color = "red"
		}
		create(t, s, "ns", n, color, map[string]string{"color": color})
	}
	sel := labels.SelectorFromSet(labels.Set{"color": "red"})
	pred := storage.SelectionPredicate{Label: sel, GetAttrs: testapi.GetAttrs}
	if got := names(list(t, s, "/ns/", storage.ListOptions{Predicate: pred})); !slices.Equal(got, []string{"c", "f"}) {
		t.Errorf("label-selected list: got %v, want [c f]", got)
	}
	// A filtered page reads on until it holds Limit matches.
	pred.Limit = 1
	var all []string
	for {
		page := list(t, s, "/ns/", storage.ListOptions{Predicate: pred})
		if len(page.Items) != 1 {
			t.Fatalf("filtered page with limit 1: got %v", names(page))
		}
		if page.RemainingItemCount != nil {
			t.Errorf("filtered page has remainingItemCount %d; want none (unknown)", *page.RemainingItemCount)
		}
		all = append(all, names(page)...)
		if pred.Continue = page.Continue; pred.Continue == "" || len(all) > 2 {
			break
		}
	}
	if !slices.Equal(all, []string{"c", "f"}) {
		t.Errorf("filtered pages: got %v, want [c f]", all)
	}
}

// testListLargePages: pages larger than one backend read (etcd3 reads 128 keys at a time)
// hold exactly limit items in key order, count the keys after them, and are read at one
// revision: a write between pages shows in neither.
func testListLargePages(t *testing.T, b Backend) {
	s := b.New(t)
	var want []string
	for i := range 300 {
		name := fmt.Sprintf("w%03d", i)
		create(t, s, "ns", name, "red", nil)
		want = append(want, name)
	}
	first := list(t, s, "/ns/", storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 200}})
	if diff := cmp.Diff(want[:200], names(first)); diff != "" {
		t.Fatalf("first page (-want +got):\n%s", diff)
	}
	if first.Continue == "" || first.RemainingItemCount == nil || *first.RemainingItemCount != 100 {
		t.Fatalf("first page metadata: %+v; want a continue token and 100 remaining", first.ListMeta)
	}
	create(t, s, "ns", "w150a", "red", nil) // sorts into the first page's keys
	create(t, s, "ns", "w250a", "red", nil) // sorts into the second page's keys
	second := list(t, s, "/ns/", storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 200, Continue: first.Continue}})
	if diff := cmp.Diff(want[200:], names(second)); diff != "" {
		t.Errorf("second page (-want +got):\n%s", diff)
	}
	if second.Continue != "" || second.RemainingItemCount != nil || second.ResourceVersion != first.ResourceVersion {
		t.Errorf("last page metadata: %+v; want no continue token nor count, at the first page's resourceVersion %s",
			second.ListMeta, first.ResourceVersion)
	}
}

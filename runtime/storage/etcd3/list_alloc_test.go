package etcd3

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestListPageAllocatedOnce: an unfiltered page read in several chunks of pageChunk keys
// (first and continued pages, and an unlimited list) holds its items in a slice allocated
// once for the page (the capacity of one allocation of that length), not regrown per chunk.
func TestListPageAllocatedOnce(t *testing.T) {
	client, _ := etcdtest.Run(t)
	s := New(client, testapi.Codec(), testapi.NewWidget, "/registry/listalloc", testapi.Resource)
	ctx := context.Background()
	const total = 2*listChunk + 50
	for i := range total {
		w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%04d", i), Namespace: "ns"}}
		if err := s.Create(ctx, "/ns/"+w.Name, w, &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
	}
	limit := int64(listChunk + 60)
	first := &testapi.WidgetList{}
	if err := s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: limit}}, first); err != nil {
		t.Fatal(err)
	}
	rest := &testapi.WidgetList{}
	if err := s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true,
		Predicate: storage.SelectionPredicate{Limit: limit, Continue: first.Continue}}, rest); err != nil {
		t.Fatal(err)
	}
	all := &testapi.WidgetList{}
	if err := s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true}, all); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		list  *testapi.WidgetList
		items int
	}{{"first page", first, int(limit)}, {"continued page", rest, total - int(limit)}, {"unlimited list", all, total}} {
		// One allocation of c.items rounds up to its size class alone.
		once := cap(slices.Grow([]testapi.Widget(nil), c.items))
		if len(c.list.Items) != c.items || cap(c.list.Items) != once {
			t.Errorf("%s: %d items in a slice of capacity %d, want %d in %d", c.name, len(c.list.Items), cap(c.list.Items), c.items, once)
		}
	}
}

// TestListPageReadInQuarters: an unfiltered page is read in at most four etcd reads (chunks of
// a quarter of the page, at least listChunk keys), not in chunks of listChunk: each read
// costs etcd a visit of every key left in the range, so a list of N objects in pages of
// 10,000 read 128 keys at a time visited about N²/256 keys.
func TestListPageReadInQuarters(t *testing.T) {
	client, _ := etcdtest.Run(t)
	s := New(client, testapi.Codec(), testapi.NewWidget, "/registry/listquarters", testapi.Resource)
	ctx := context.Background()
	const total = 8 * listChunk
	for i := range total {
		w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%04d", i), Namespace: "ns"}}
		if err := s.Create(ctx, "/ns/"+w.Name, w, &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
	}
	counting := &countingKV{KV: client.KV}
	client.KV = counting
	for _, limit := range []int64{total, 3 * listChunk} {
		counting.gets.Store(0)
		page := &testapi.WidgetList{}
		if err := s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: limit}}, page); err != nil {
			t.Fatal(err)
		}
		if int64(len(page.Items)) != limit {
			t.Fatalf("a page of %d holds %d items", limit, len(page.Items))
		}
		want := int32(4)
		if limit < 4*listChunk {
			want = int32((limit + listChunk - 1) / listChunk)
		}
		if got := counting.gets.Load(); got != want {
			t.Errorf("a page of %d widgets took %d etcd reads, want %d (chunks of max(%d, a quarter of the page))", limit, got, want, listChunk)
		}
	}
}

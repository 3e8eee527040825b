package memory_test

import (
	"context"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/memory"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestConformance: the in-memory store keeps the storage contract (the whole kit but the
// comparison with etcd's lists and the replica test: one process's memory has no reference
// nor replica).
func TestConformance(t *testing.T) {
	t.Parallel()
	var last *memory.Store
	storagetest.Run(t, storagetest.Backend{
		New: func(t *testing.T) storage.Interface {
			last = memory.New(testapi.Codec(), testapi.NewWidget, testapi.Resource)
			return last
		},
		Compact: func(t *testing.T) { last.Compact() },
	})
}

// TestListNotOlderThanTheFuture: a list asking for a revision the store has not reached is
// "Too large resource version" (504 with Retry-After at the API), never an older state.
func TestListNotOlderThanTheFuture(t *testing.T) {
	t.Parallel()
	s := memory.New(testapi.Codec(), testapi.NewWidget, testapi.Resource)
	future := strconv.FormatInt(s.Compact()+5, 10)
	for _, match := range []metav1.ResourceVersionMatch{"", metav1.ResourceVersionMatchNotOlderThan} {
		err := s.GetList(context.Background(), "/", storage.ListOptions{Recursive: true, ResourceVersion: future,
			ResourceVersionMatch: match}, &testapi.WidgetList{})
		if !storage.IsResourceVersionTooLarge(err) {
			t.Errorf("list at resourceVersion %s (match %q): %v, want Too large resource version", future, match, err)
		}
	}
}

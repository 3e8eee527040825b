package memory_test

import (
	"testing"

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

package etcd3

import (
	"context"
	"fmt"

	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// SetTransformer makes st (a storage.Interface from New or NewStorage) pass every value
// through t: TransformToStorage before a write, TransformFromStorage after a read, with the
// etcd key as authenticated data (value.DefaultContext), as kube-apiserver's etcd3 store
// does with its value.Transformer (encryption at rest). A nil t stores values as they are
// encoded. Call it before st serves requests. It panics for a storage.Interface of another
// kind.
func SetTransformer(st storage.Interface, t value.Transformer) {
	st.(*store).transformer = t
}

// fromStorage returns the plain bytes of data, the stored value of the etcd key k, and
// whether they are stale (the transformer that read them is not the one writes use: a
// rewrite re-encrypts them), as kube-apiserver's etcd3 store calls TransformFromStorage.
// Errors: Internal, naming the key, when no transformer can read data.
func (s *store) fromStorage(ctx context.Context, k string, data []byte) ([]byte, bool, error) {
	if s.transformer == nil {
		return data, false, nil
	}
	plain, stale, err := s.transformer.TransformFromStorage(ctx, data, value.DefaultContext(k))
	if err != nil {
		return nil, false, &storage.StatusError{Code: storage.ErrCodeInternal,
			Message: fmt.Sprintf("cannot read the stored value of %s at %q: %v", s.gr, k, err), Err: err}
	}
	return plain, stale, nil
}

// plain is fromStorage without the staleness, for reads that do not write.
func (s *store) plain(ctx context.Context, k string, data []byte) ([]byte, error) {
	out, _, err := s.fromStorage(ctx, k, data)
	return out, err
}

// toStorage returns the bytes to store at the etcd key k for the plain bytes data.
// Errors: Internal when the transformer fails (a KMS plugin that does not answer).
func (s *store) toStorage(ctx context.Context, k string, data []byte) ([]byte, error) {
	if s.transformer == nil {
		return data, nil
	}
	out, err := s.transformer.TransformToStorage(ctx, data, value.DefaultContext(k))
	if err != nil {
		return nil, &storage.StatusError{Code: storage.ErrCodeInternal,
			Message: fmt.Sprintf("cannot transform %s for storage at %q: %v", s.gr, k, err), Err: err}
	}
	return out, nil
}

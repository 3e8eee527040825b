package app

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/storage/encryption"
)

// loadEncryption reads --encryption-provider-config (file; "" for none, then nil) into the
// transformer of each resource, as kube-apiserver's storage factory applies its
// EncryptionConfiguration to every resource: built-ins and custom resources alike. KMS
// plugins' polls run until ctx ends.
func loadEncryption(ctx context.Context, file string) (func(schema.GroupResource) value.Transformer, error) {
	if file == "" {
		return nil, nil
	}
	t, err := encryption.LoadFile(ctx, file, encryption.Options{})
	if err != nil {
		return nil, fmt.Errorf("--encryption-provider-config: %w", err)
	}
	return t.TransformerFor, nil
}

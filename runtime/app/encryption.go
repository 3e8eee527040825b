package app

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/encryption"
)

// loadEncryption reads --encryption-provider-config (file; "" for none, then nil) into the
// transformer of each resource, as kube-apiserver's storage factory applies its
// EncryptionConfiguration to every resource: built-ins and custom resources alike. KMS
// plugins' polls run until ctx ends.
// The health check, when the file configures KMS v2 plugins, is kube-apiserver's
// "kms-providers" (nil otherwise).
func loadEncryption(ctx context.Context, file string) (func(schema.GroupResource) value.Transformer, server.HealthChecker, error) {
	if file == "" {
		return nil, nil, nil
	}
	health := &encryption.KMSHealth{}
	t, err := encryption.LoadFile(ctx, file, encryption.Options{KMSHealth: health})
	if err != nil {
		return nil, nil, fmt.Errorf("--encryption-provider-config: %w", err)
	}
	if health.Empty() {
		return t.TransformerFor, nil, nil
	}
	return t.TransformerFor, server.NamedCheck("kms-providers", func(req *http.Request) error {
		return health.Check(req.Context())
	}), nil
}

package registry

import (
	"fmt"
	"io"
	"log/slog"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// UserStorageConfig is what the constructor of a kind's own storage receives: a kind marked
// +apigen:storage=interface is stored in the storage.Interface its install package's
//
//	func new<Kind>Storage(config registry.UserStorageConfig) (storage.Interface, error)
//
// returns, in place of the server's etcd, as k8s.io/apiserver's generic.StorageDecorator
// lets a resource supply its own storage. The generated Store (validation, defaulting,
// admission, field management, paging, resourceVersion checks) runs over it.
//
// The storage keeps storage.Interface's contract, as runtime/storage/storagetest checks it
// (storagetest.Run): resourceVersions are decimal revisions, monotonically increasing across
// the resource; Watch replays every change after any resourceVersion it has not compacted
// (410 Expired for one it has); GetList pages with continue tokens at the first page's
// revision. The server does not put its watch cache over it: every read and watch goes to
// the storage, which is the source of truth for writers the server does not see (another
// program writing the same table); a storage wanting a cache wraps itself in
// cacher.New(cacher.Config{Storage: ...}), whose requirements are the same contract's.
//
// When the storage returned implements io.Closer, the server closes it at shutdown, after it
// has stopped serving.
type UserStorageConfig struct {
	// Resource is the resource stored, e.g. backuprecords.db.example.com.
	Resource schema.GroupResource
	// StorageVersion is the version objects are stored in (the kind's +kubebuilder:storageversion).
	StorageVersion schema.GroupVersion
	// Codec encodes internal objects as JSON of StorageVersion and decodes any version the
	// scheme knows into defaulted internal objects, as the server's etcd storage does.
	Codec runtime.Codec
	// NewFunc returns an empty internal object; NewListFunc an empty internal list.
	NewFunc, NewListFunc func() runtime.Object
	// Default returns the storage the server would have given the resource (etcd, or kine):
	// a constructor may fall back to it, e.g. when its database is not configured.
	Default func() (storage.Interface, error)
	// Logger is the server's logger.
	Logger *slog.Logger
}

// UserStorageHost is implemented by the StorageFactory a server hands its groups when it
// hosts their own storages: it closes them at shutdown and gives them its logger.
type UserStorageHost interface {
	// Logger returns the server's logger.
	Logger() *slog.Logger
	// CloseAtShutdown closes c once the server has stopped serving.
	CloseAtShutdown(c io.Closer)
}

// NewUserStorage returns the storage of a kind marked +apigen:storage=interface: the one
// newStorage (the install package's hand-written constructor) returns for cfg, which
// NewUserStorage completes with the codec of storageVersion through scheme, the logger, and
// Default (factory's storage of the resource). When factory is a UserStorageHost, a
// storage that is an io.Closer is closed at shutdown. Errors: newStorage's, wrapped with
// the resource's name.
func NewUserStorage(factory StorageFactory, scheme *runtime.Scheme, cfg UserStorageConfig,
	newStorage func(UserStorageConfig) (storage.Interface, error)) (storage.Interface, error) {
	if !scheme.IsVersionRegistered(cfg.StorageVersion) {
		return nil, fmt.Errorf("cannot create the storage of %s: storage version %s is not registered in the scheme", cfg.Resource, cfg.StorageVersion)
	}
	js := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{})
	internal := schema.GroupVersion{Group: cfg.Resource.Group, Version: runtime.APIVersionInternal}
	cfg.Codec = serializer.NewCodecFactory(scheme).CodecForVersions(js, js, cfg.StorageVersion, internal)
	cfg.Default = func() (storage.Interface, error) {
		return factory.NewStorage(cfg.Resource, cfg.StorageVersion, scheme, cfg.NewFunc)
	}
	host, hosted := factory.(UserStorageHost)
	cfg.Logger = slog.Default()
	if hosted {
		cfg.Logger = host.Logger()
	}
	st, err := newStorage(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot create the storage of %s: %w", cfg.Resource, err)
	}
	if st == nil {
		return nil, fmt.Errorf("cannot create the storage of %s: its constructor returned no storage", cfg.Resource)
	}
	if c, ok := st.(io.Closer); ok && hosted {
		host.CloseAtShutdown(c)
	}
	return st, nil
}

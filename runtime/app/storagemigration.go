package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	svmclient "k8s.io/client-go/kubernetes/typed/storagemigration/v1"

	svminstall "github.com/apigen-dev/apigen/runtime/apis/storagemigration/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storageversionmigrator"
)

// storageMigrationV1 is the --runtime-config name of the StorageVersionMigration API.
const storageMigrationV1 = "storagemigration.k8s.io/v1"

// StorageVersionMigratorHookName is the post-start hook that starts the storage version
// migrator (or, when replicas elect it, its Lease "storage-version-migrator-controller").
const StorageVersionMigratorHookName = "start-storage-version-migrator"

// StorageMigrationOptions are the flags of storage versions and their migration.
type StorageMigrationOptions struct {
	// StorageVersionOverrides store the named resources in another version than the one
	// their types declare (+kubebuilder:storageversion, or the group's only version):
	// "<resource>.<group>=<version>" ("databases.db.example.com=v1alpha1"; the core group's
	// resources are "<resource>="...). For a rollback to a server whose types predate a
	// storage version switch, or to try a switch and its migration without rebuilding the
	// server. The version must be one the server knows for the resource's group.
	StorageVersionOverrides []string
	// MigrationPageSize is the limit of each list page the storage version migrator reads
	// (and the number of objects between two saves of its progress). Default 500.
	MigrationPageSize int64
}

// AddFlags registers --storage-version-overrides and --storage-version-migration-page-size.
func (o *StorageMigrationOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.StorageVersionOverrides, "storage-version-overrides", o.StorageVersionOverrides,
		"store resources in another version than their types declare, <resource>.<group>=<version> comma-separated (e.g. databases.db.example.com=v1alpha1): "+
			"to roll back to a server built before a storage version switch, or to try a switch and its StorageVersionMigration")
	fs.Int64Var(&o.MigrationPageSize, "storage-version-migration-page-size", o.MigrationPageSize,
		"objects per list page the storage version migrator rewrites between two saves of its progress")
}

// validate returns the problems of the options.
func (o *StorageMigrationOptions) validate() []string {
	var errs []string
	if _, err := parseStorageVersionOverrides(o.StorageVersionOverrides); err != nil {
		errs = append(errs, err.Error())
	}
	if o.MigrationPageSize <= 0 {
		errs = append(errs, "--storage-version-migration-page-size must be positive")
	}
	return errs
}

// parseStorageVersionOverrides parses "<resource>.<group>=<version>" entries.
func parseStorageVersionOverrides(entries []string) (map[schema.GroupResource]string, error) {
	out := map[schema.GroupResource]string{}
	for _, e := range entries {
		res, version, ok := strings.Cut(e, "=")
		if !ok || res == "" || version == "" {
			return nil, fmt.Errorf("--storage-version-overrides %q: write <resource>.<group>=<version>", e)
		}
		out[schema.ParseGroupResource(res)] = version
	}
	return out, nil
}

// overridingFactory is the server's storage factory with --storage-version-overrides
// applied: NewStorage stores an overridden resource in the version named instead of the
// one its install code asks for. It remembers which overrides it applied (unused).
type overridingFactory struct {
	storageFactory
	mu        sync.Mutex
	overrides map[schema.GroupResource]string
	used      map[schema.GroupResource]bool
}

// withStorageVersionOverrides returns base with the overrides of o, or base when there are
// none.
func withStorageVersionOverrides(base storageFactory, o *StorageMigrationOptions) (storageFactory, error) {
	overrides, err := parseStorageVersionOverrides(o.StorageVersionOverrides)
	if err != nil || len(overrides) == 0 {
		return base, err
	}
	return &overridingFactory{storageFactory: base, overrides: overrides, used: map[schema.GroupResource]bool{}}, nil
}

// NewStorage implements registry.StorageFactory. Errors: the base factory's (an override
// naming a version the scheme does not know).
func (f *overridingFactory) NewStorage(resource schema.GroupResource, storageVersion schema.GroupVersion,
	scheme *runtime.Scheme, newFunc func() runtime.Object) (storage.Interface, error) {
	f.mu.Lock()
	if v, ok := f.overrides[resource]; ok {
		storageVersion = schema.GroupVersion{Group: resource.Group, Version: v}
		f.used[resource] = true
	}
	f.mu.Unlock()
	return f.storageFactory.NewStorage(resource, storageVersion, scheme, newFunc)
}

// unused returns an error naming the overrides no resource used (a misspelt resource).
func (f *overridingFactory) unused() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for gr := range f.overrides {
		if !f.used[gr] {
			names = append(names, gr.String())
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	return fmt.Errorf("--storage-version-overrides: the server stores no resource %s", strings.Join(names, ", "))
}

// serveStorageMigrations returns storagemigration.k8s.io/v1 (StorageVersionMigrations,
// generated by apigen under runtime/apis/storagemigration/v1) to serve, or nil when
// --runtime-config turns it off.
func serveStorageMigrations(o *Options, scheme *runtime.Scheme, factory registry.StorageFactory) ([]*registry.APIGroupInfo, error) {
	if !o.RuntimeConfigEnabled(storageMigrationV1) {
		return nil, nil
	}
	info, err := svminstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		return nil, fmt.Errorf("cannot build the storagemigration.k8s.io API: %w", err)
	}
	return []*registry.APIGroupInfo{info}, nil
}

// serveStorageVersionMigrator adds the hook StorageVersionMigratorHookName to top, which
// runs the storage version migrator (runtime/storageversionmigrator) through the loopback
// client until the server stops, once ext (nil when the CRD API is off) has served the CRDs
// stored before the start, so that a migration of a custom resource does not fail as not
// served. When singles elect, the migrator is one of them instead (the Lease
// "storage-version-migrator-controller"). Nothing runs when the API is off.
func serveStorageVersionMigrator(o *Options, log *slog.Logger, lb *loopback, top *server.Server, crdsServed <-chan struct{}, singles *singletons) error {
	if !o.RuntimeConfigEnabled(storageMigrationV1) {
		return nil
	}
	run := func(ctx context.Context) {
		if crdsServed != nil {
			select {
			case <-crdsServed:
			case <-ctx.Done():
				return
			}
		}
		cfg := lb.config()
		if cfg == nil {
			log.Error("storage version migrator: the loopback client is not configured")
			return
		}
		cfg.UserAgent = storageversionmigrator.ControllerName
		// client-go's typed clients of Kubernetes' groups send protobuf by default; the
		// runtime's built-in groups are served in JSON.
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
		migrations, err := svmclient.NewForConfig(cfg)
		if err != nil {
			log.Error("storage version migrator: cannot build its client", "err", err)
			return
		}
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			log.Error("storage version migrator: cannot build its client", "err", err)
			return
		}
		disc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			log.Error("storage version migrator: cannot build its client", "err", err)
			return
		}
		c := storageversionmigrator.New(storageversionmigrator.Config{Migrations: migrations, Dynamic: dyn, Discovery: disc,
			PageSize: o.MigrationPageSize, Log: log})
		if err := c.Run(ctx); err != nil {
			log.Error("storage version migrator stopped", "err", err)
		}
	}
	if singles.elect {
		singles.add(storageversionmigrator.ControllerName, run)
		return nil
	}
	return top.AddPostStartHook(StorageVersionMigratorHookName, func(ctx context.Context) error {
		go run(ctx)
		return nil
	})
}

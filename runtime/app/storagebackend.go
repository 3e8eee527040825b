package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// etcd3Backend is --storage-backend's default: etcd, embedded or --etcd-servers.
const etcd3Backend = "etcd3"

// StorageBackend starts storage that serves etcd's API in process, for a --storage-backend
// value other than "etcd3": it keeps its data under dataDir, returns the client URLs the
// server's etcd client connects to, a description for the readiness line (where the data
// is, how other clients reach it) and stop, which the server calls on shutdown after closing
// its client. ctx bounds the start. Example: kine.EmbeddedSQLite
// (runtime/storage/kine), registered as "kine-sqlite".
type StorageBackend func(ctx context.Context, dataDir string) (endpoints []string, describe string, stop func() error, err error)

// StorageBackends are the --storage-backend values a server's main has linked, besides
// "etcd3", by name: register them before Main, as
//
//	app.StorageBackends["kine-sqlite"] = kine.EmbeddedSQLite
//
// runtime/app links none, so that servers that do not want one do not carry its database
// drivers.
var StorageBackends = map[string]StorageBackend{}

// storageBackendNames lists the valid --storage-backend values, etcd3 first.
func storageBackendNames() string {
	names := []string{etcd3Backend}
	for name := range StorageBackends {
		names = append(names, name)
	}
	slices.Sort(names[1:])
	return strings.Join(names, ", ")
}

// validateStorageBackend checks --storage-backend against the linked backends and the etcd
// flags it excludes.
func (o *Options) validateStorageBackend() []string {
	if o.StorageBackend == etcd3Backend {
		return nil
	}
	if _, ok := StorageBackends[o.StorageBackend]; !ok {
		return []string{fmt.Sprintf("--storage-backend %q is not one this server links (%s)", o.StorageBackend, storageBackendNames())}
	}
	var errs []string
	if len(o.EtcdServers) > 0 {
		errs = append(errs, fmt.Sprintf("--storage-backend=%s starts its own storage: drop --etcd-servers (or use --storage-backend=etcd3 with --etcd-servers pointing at a kine endpoint)", o.StorageBackend))
	}
	if o.EmbeddedEtcdClientURL != "" {
		errs = append(errs, fmt.Sprintf("--embedded-etcd-client-url needs the embedded etcd, not --storage-backend=%s", o.StorageBackend))
	}
	return errs
}

// startStorageBackend starts the in-process storage backend name and connects to it.
func startStorageBackend(ctx context.Context, name, dataDir string) (*etcdConn, error) {
	return startStorageBackendFrom(ctx, StorageBackends, name, dataDir)
}

// startStorageBackendFrom is startStorageBackend with backends for StorageBackends.
func startStorageBackendFrom(ctx context.Context, backends map[string]StorageBackend, name, dataDir string) (*etcdConn, error) {
	endpoints, describe, stop, err := backends[name](ctx, dataDir)
	if err != nil {
		return nil, fmt.Errorf("cannot start --storage-backend=%s: %w", name, err)
	}
	conn, err := connectEtcdServers(ctx, endpoints, EtcdTLSFiles{})
	if err != nil {
		return nil, fmt.Errorf("--storage-backend=%s: %w", name, joinErr(err, stop()))
	}
	conn.describe, conn.stop = describe, stop
	return conn, nil
}

// joinErr adds a cleanup's error, if any, to err.
func joinErr(err, cleanup error) error {
	if cleanup == nil {
		return err
	}
	return fmt.Errorf("%w (and stopping it: %v)", err, cleanup)
}

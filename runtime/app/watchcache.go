package app

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/apiextensions"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
)

// WatchCacheOptions are kube-apiserver's watch cache flags.
type WatchCacheOptions struct {
	// WatchCache serves lists, gets with a resourceVersion and watches of every resource from
	// a watch cache (runtime/storage/cacher), as kube-apiserver's --watch-cache. Default true;
	// false reads etcd for every request.
	WatchCache bool
	// WatchCacheSizes sets the history size (events) of resources, "resource[.group]#size"
	// (the group omitted for the core group), as kube-apiserver's --watch-cache-sizes; a size
	// of 0 stores that resource without a cache.
	WatchCacheSizes []string
}

func newWatchCacheOptions() WatchCacheOptions { return WatchCacheOptions{WatchCache: true} }

// addFlags registers the options on fs.
func (o *WatchCacheOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.WatchCache, "watch-cache", o.WatchCache, "serve lists, gets with a resourceVersion and watches from an in-memory cache of each resource, fed by one etcd watch per resource")
	fs.StringSliceVar(&o.WatchCacheSizes, "watch-cache-sizes", o.WatchCacheSizes, fmt.Sprintf("watch cache history sizes (events) of some resources, comma-separated resource[.group]#size (the group omitted for the core group, e.g. databases.db.example.com#5000,namespaces#100); 0 disables the cache of that resource; others keep %d events", cacher.DefaultHistorySize))
}

// validate returns the problems of the options.
func (o *WatchCacheOptions) validate() []string {
	if _, err := parseWatchCacheSizes(o.WatchCacheSizes); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// parseWatchCacheSizes parses --watch-cache-sizes. Errors: an entry that is not
// resource[.group]#size with a non-negative size.
func parseWatchCacheSizes(entries []string) (map[schema.GroupResource]int, error) {
	sizes := map[schema.GroupResource]int{}
	for _, e := range entries {
		name, size, ok := strings.Cut(e, "#")
		n, err := strconv.Atoi(size)
		if !ok || name == "" || err != nil || n < 0 {
			return nil, fmt.Errorf("--watch-cache-sizes %q: write resource[.group]#size with a size of 0 or more", e)
		}
		resource, group, _ := strings.Cut(name, ".")
		sizes[schema.GroupResource{Group: group, Resource: resource}] = n
	}
	return sizes, nil
}

// storageFactory is what the server's groups store through: typed kinds and custom
// resources.
type storageFactory = apiextensions.StorageFactory

// newStorageFactory returns base, behind watch caches unless --watch-cache=false. The caches
// (and the compaction tracker they share) stop when etcd is closed, before its client. They
// start filling once built is closed: the groups built over the factory register their types
// in the shared scheme, which the caches' decoding reads.
func newStorageFactory(o *WatchCacheOptions, etcd *etcdConn, base *etcd3.StorageFactory, log *slog.Logger, built <-chan struct{}) (storageFactory, error) {
	if !o.WatchCache {
		return base, nil
	}
	sizes, err := parseWatchCacheSizes(o.WatchCacheSizes)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	tracker := etcd3.TrackCompactions(ctx, etcd.client)
	f := &cacher.StorageFactory{Base: base, HistorySizes: sizes, CompactedRevision: tracker.Revision, Logger: log, Metrics: base.Metrics, Start: built}
	// As kube-apiserver: consistent reads come from the caches only when every etcd
	// endpoint answers watch progress requests (kine v0.17.5 does); otherwise from etcd.
	probe, cancelProbe := context.WithTimeout(ctx, etcdDialTimeout)
	progress, err := etcd3.SupportsWatchProgress(probe, etcd.client)
	cancelProbe()
	if !progress {
		f.NoWatchProgress = true
		log.Warn("etcd does not answer watch progress requests (RequestWatchProgress needs etcd 3.4.31, 3.5.13 or later): consistent reads are served by etcd, not the watch cache", "error", err)
	}
	etcd.beforeClose = append(etcd.beforeClose, func() {
		f.Stop()
		cancel()
	})
	return f, nil
}

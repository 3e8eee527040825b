package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/apiextensions"
	"github.com/apigen-dev/apigen/runtime/apiextensions/customresource"
	"github.com/apigen-dev/apigen/runtime/garbagecollector"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
)

// GarbageCollectorHookName is the post-start hook that starts the garbage collector.
const GarbageCollectorHookName = "start-garbage-collector"

// GarbageCollectorOptions are the garbage collector's flag, named as kube-apiserver's and
// kube-controller-manager's.
type GarbageCollectorOptions struct {
	// EnableGarbageCollector runs the garbage collector (runtime/garbagecollector) in the
	// server. Default true. Turn it off for a server behind a cluster whose
	// kube-controller-manager collects the server's resources itself; deletes still set the
	// foregroundDeletion and orphan finalizers, for that collector to handle.
	EnableGarbageCollector bool
}

// AddFlags registers --enable-garbage-collector on fs.
func (o *GarbageCollectorOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.EnableGarbageCollector, "enable-garbage-collector", o.EnableGarbageCollector,
		"run the garbage collector: delete the dependents of deleted owners (ownerReferences) and carry out foreground and orphan deletions; "+
			"turn it off when a cluster's kube-controller-manager collects this server's resources")
}

// serveGarbageCollector adds the post-start hook GarbageCollectorHookName to top, unless the
// collector is off: it runs a garbage collector over every resource of the chain below top
// (the groups each link installed: typed groups, namespaces, RBAC, APIServices, CRDs) and the
// custom resources of ext (nil when the CRD API is off), which it re-reads when a custom
// resource is served or removed, until the server stops. It starts once ext has served the
// CRDs stored before the start (ext.Served): a foreground deletion under way across a restart
// must not be finished by a collector that does not watch its owner's custom-resource
// dependents yet. The hook returns (and /readyz turns ready) once the collector's informers
// have listed every resource, or after garbageCollectorSyncWait. Aggregated APIs are not
// watched. When singles elect, the collector is one of them instead (the Lease
// "garbage-collector", as kube-controller-manager's): it runs in the replica holding it, and
// readiness does not wait for it.
func serveGarbageCollector(o *GarbageCollectorOptions, log *slog.Logger, m *metrics.Metrics, top *server.Server,
	ext *apiextensions.Extensions, singles *singletons) error {
	if !o.EnableGarbageCollector {
		return nil
	}
	var crs *customresource.Handler
	var crdsServed <-chan struct{} // nil: no CRD API, nothing to wait for
	if ext != nil {
		crs, crdsServed = ext.Handler, ext.Served()
	}
	sources := []garbagecollector.Source{garbagecollector.SourceFunc(func() []garbagecollector.Resource {
		return garbagecollector.APIGroupResources(chainAPIGroupInfos(top)...)
	})}
	if crs != nil {
		sources = append(sources, garbagecollector.SourceFunc(func() []garbagecollector.Resource {
			return customResourceResources(crs.ServedResources())
		}))
	}
	gc := garbagecollector.New(garbagecollector.Config{Sources: sources, Log: log, Metrics: m})
	if crs != nil {
		crs.OnChange(gc.Resync)
	}
	run := func(ctx context.Context) {
		if crdsServed != nil {
			select {
			case <-crdsServed:
			case <-ctx.Done():
				return
			}
		}
		if err := gc.Run(ctx); err != nil {
			log.Error("garbage collector stopped", "err", err)
		}
	}
	if singles.elect {
		singles.add("garbage-collector", run)
		return nil
	}
	return top.AddPostStartHook(GarbageCollectorHookName, func(ctx context.Context) error {
		go run(ctx)
		waitForGarbageCollectorSync(ctx, gc, log)
		return nil
	})
}

// garbageCollectorSyncWait bounds how long the hook holds readiness back for the collector's
// informers to list every resource.
const garbageCollectorSyncWait = 10 * time.Second

// waitForGarbageCollectorSync returns once gc has synced (so that /readyz reports a server
// whose collector watches everything), ctx ends, or garbageCollectorSyncWait passes (a
// resource that cannot be listed must not keep the server unready; the collector goes on
// trying).
func waitForGarbageCollectorSync(ctx context.Context, gc *garbagecollector.GarbageCollector, log *slog.Logger) {
	deadline := time.Now().Add(garbageCollectorSyncWait)
	for !gc.IsSynced() {
		if time.Now().After(deadline) {
			log.Warn("garbage collector: not synced yet; the server is ready without it")
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// chainAPIGroupInfos returns the groups installed in every link of the chain from top.
func chainAPIGroupInfos(top *server.Server) []*registry.APIGroupInfo {
	var out []*registry.APIGroupInfo
	for link := server.DelegationTarget(top); link != nil; link = link.NextDelegate() {
		if s, ok := link.(interface {
			APIGroupInfos() []*registry.APIGroupInfo
		}); ok {
			out = append(out, s.APIGroupInfos()...)
		}
	}
	return out
}

// customResourceResources describes served custom resources for the garbage collector.
func customResourceResources(served []customresource.ServedResource) []garbagecollector.Resource {
	out := make([]garbagecollector.Resource, 0, len(served))
	for _, r := range served {
		out = append(out, garbagecollector.Resource{
			GroupVersionResource: schema.GroupVersionResource{Group: r.Group, Version: r.Versions[0], Resource: r.Plural},
			Kind:                 r.Kind, Versions: r.Versions, Namespaced: r.Namespaced, Storage: r.Store,
		})
	}
	return out
}

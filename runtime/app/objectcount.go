package app

import (
	"context"
	"path"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
)

// objectCountInterval is how often the stored objects are counted, as kube-apiserver's
// storage object count tracker.
const objectCountInterval = time.Minute

// countObjects sets apiserver_storage_objects for every resource of infos, from a count-only
// etcd range over its key prefix, at once and then every interval until ctx ends. A failed
// count leaves the last value.
func countObjects(ctx context.Context, client *clientv3.Client, prefix string, infos []*registry.APIGroupInfo, m *metrics.Metrics, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, info := range infos {
			seen := map[string]bool{}
			for _, resources := range info.VersionedResourcesStorageMap {
				for name, s := range resources {
					if _, unstored := s.(*registry.CreateOnlyStore); unstored || strings.Contains(name, "/") || seen[name] {
						continue // subresources share their resource's objects; reviews are never stored
					}
					seen[name] = true
					stored := schema.GroupResource{Group: info.Group, Resource: name}
					if gr, ok := cohabiting[stored]; ok {
						stored = gr // events.k8s.io events are the core group's
					}
					key := path.Join("/", prefix, stored.Group, stored.Resource) + "/"
					cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					resp, err := client.Get(cctx, key, clientv3.WithPrefix(), clientv3.WithCountOnly())
					cancel()
					if err == nil {
						m.SetStorageObjects(schema.GroupResource{Group: info.Group, Resource: name}.String(), resp.Count) // "namespaces" for the core group
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

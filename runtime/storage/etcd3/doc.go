// Package etcd3 implements storage.Interface on etcd's clientv3, with kube-apiserver's
// semantics (DESIGN.md section 6; k8s.io/apiserver/pkg/storage/etcd3 is the anchor):
//
//   - an object's metadata.resourceVersion is the etcd ModRevision of its key, a list's is
//     the revision of the read; resourceVersion is never stored inside the value;
//   - Create, GuaranteedUpdate and Delete are transactions comparing the key's ModRevision
//     (go.etcd.io/etcd/client/v3/kubernetes's OptimisticPut and OptimisticDelete);
//   - lists page with Kubernetes-shaped continue tokens read at one revision;
//   - watches turn etcd events into ADDED/MODIFIED/DELETED/BOOKMARK/ERROR watch events,
//     applying the selection predicate server-side; a watch's memory is bounded: its initial
//     events are read a chunk at a time, and a consumer that leaves its buffer of change
//     events full for a second is cut off (the watch closes, as kube-apiserver closes an
//     unresponsive watcher);
//   - errors are storage.StatusError values: a compacted revision is Expired, an etcd that
//     does not answer within the caller's context is Unreachable.
//
// Each store remembers the last state it saw per key (writes start from it, the
// transaction's ModRevision compare catches a stale one) and the objects it decoded, by
// their bytes (a read of unchanged bytes costs a copy, not a decode). Reads whose context
// is marked by request.WithReadOnlyResults (the HTTP get, list and watch handlers) get shallow
// copies sharing the decoded objects' maps and slices instead of deep copies, watch events too. Concurrent
// linearizable Gets of one store are coalesced into read-only transactions (readBatcher): one
// round trip, still linearizable, serves many.
//
// StartCompactor compacts old revisions periodically, as kube-apiserver's
// --etcd-compaction-interval.
//
// For a watch cache (runtime/storage/cacher) a store reports etcd's current revision
// (storage.RevisionReader, a coalesced linearizable read) and asks its watch stream for
// progress (storage.ProgressRequester); TrackCompactions follows the compacted revision.
// The cache's own list and watch (storage.WithInternalWatch) are not counted as watchers
// and leave the decode cache alone. A store under a watch cache (storage.DecodedObjectsUser)
// takes the cache's objects instead of decoding what it reads, keeps no decode cache, and
// remembers each key's last state by revision and digest (with the bytes of its latest
// writes only, for writes that come before the cache has caught up), so every object of a
// cached resource is held decoded once, by the cache.
package etcd3

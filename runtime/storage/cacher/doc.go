// Package cacher is apigen's watch cache, as kube-apiserver's
// (k8s.io/apiserver/pkg/storage/cacher): a storage.Interface decorator that serves reads
// and watches of one resource from memory, fed by one watch of the storage it decorates.
//
// A Cacher lists the resource at a revision and watches storage from there. It keeps the
// objects in a copy-on-write B-tree ordered by key (a namespace's objects are one key range,
// so a namespaced list reads only them), a bounded history of events (by count and by the
// estimated size of their objects, --watch-cache-sizes) with a snapshot of the objects after
// each, and the revision it has seen everything up to (events, and the progress BOOKMARKs
// of its watch). When the watch ends it resumes from that revision; when storage has
// compacted it, the cache closes its watchers and lists again.
//
// Writes go to storage. Reads, as kube-apiserver 1.31+ serves them (ConsistentListFromCache,
// ListFromCacheSnapshot):
//
//   - GetList with resourceVersion "" is a consistent read: the cache asks storage for the
//     revision a quorum read sees now (storage.RevisionReader), asks storage's watch for
//     progress while it waits (storage.ProgressRequester) and serves once it has reached
//     it; "0" and NotOlderThan serve at once (or once reached); Exact, legacy paged lists at
//     N and continue tokens are served from the snapshot at that revision while the history
//     holds it and storage has not compacted it, else by storage. Pages, continue tokens and
//     remainingItemCount are etcd3's, byte for byte.
//   - Get with resourceVersion "" goes to storage (a linearizable read); "0" and N are
//     served from the cache.
//   - Watch serves every watcher from the cache: a watch from a resourceVersion inside the
//     history replays it (even after etcd compacted it), one before it gets 410 Expired;
//     initial events, streaming lists (SendInitialEvents) with the initial-events-end
//     BOOKMARK, selectors (objects entering and leaving the selection are ADDED and
//     DELETED), and BOOKMARKs about every minute for watchers that ask. A watcher that falls
//     behind by more than its buffer is waited for at most a budget the reflector shares
//     among all (100ms, refilled by 50ms a second, as kube's cacher), then cut off (its
//     channel closes, its consumer is terminated through request.TerminateWatch; the
//     client resumes from its last resourceVersion), so it never holds up the cache or
//     other watchers longer than that budget, and never a write.
//
// Objects are held once: the tree, the history and the snapshots share them; readers marked
// by request.WithReadOnlyResults get shallow copies, others deep copies. Objects share their
// equal metadata values (namespace, managed fields' manager, operation, apiVersion and
// fieldsV1 bytes) through a bounded intern table, instead of holding a copy each. The storage under
// a cache takes its objects too (storage.DecodedObjects), instead of decoding the values it
// reads and keeping decoded copies of its own. Until a cache is synced, while it relists,
// and after Stop, every call goes to storage.
//
// Memory: a decoded object costs several times its stored bytes (a ~1.8 KB stored Database
// with a map of 34 parameters decodes to about 4.5 KB of Go values, most of it the map and
// its strings), so the cache keeps decoded only the objects read lately. A cooler
// (Config.CoolInterval, every 5 s by default) sweeps the current objects as a CLOCK: reads
// (gets and lists from the cache, watches' initial events, the storage's DecodedObject)
// mark an entry referenced, as do a relist and a change of a cached object (the lists of a
// reader marked by request.WithTransientReads do not: they decode a cold object for that
// reader only, so a controller's relist leaves the cache as cold as it was); a pass unmarks
// the marked ones and makes the others cold: their JSON (the type's generated codec,
// jsoncodec), compressed with S2 against a dictionary of the cache's first objects,
// replaces the decoded object, once a decode of that JSON is checked to give an object
// equal to it (reflect.DeepEqual): about 25 µs of CPU per Database, once per object
// written; a full pass takes at most a quarter of a CPU per cache (it paces itself). The
// next get of a cold object decodes it again (about 10 µs for that Database), interns its
// metadata as the reflector does, and keeps it decoded. A list or a watch's initial events
// decode a cold object for themselves the first time they read it since the cooler's last
// pass, and keep it decoded when they read it again before the next one: a one-off list of
// many cold objects (a client's informer starting) holds each page of them only while it
// is written (with 100,000 cold Databases, a list at resourceVersion 0 raised the server's
// anonymous memory from 122 to 976 MB, 630 MB still 14 s later, and now to 237 MB, 127 MB
// 6 s later), and objects listed over and over stay decoded. An object without a generated
// codec, or whose JSON does not read back equal, stays decoded.
//
// An object new to the cache is looked at sooner, by a young pass within a tenth of the
// interval after it was cached (500 ms): a burst of creates leaves half a second of its objects
// decoded, not five to ten seconds of them (at 2,500 creates a second on two cores, the
// server's peak RSS while creating fell from 270-303 MB to 175-184 MB). The history's events
// read their objects through the entries, and sending an event to a watcher is not a read:
// the history holds no decoded copy of a cold entry's object, and a watch replaying it
// decodes the object again, as a read does. The states an event replaced or deleted, no
// longer in the tree, are never made cold. A list that fills a cache makes cold the objects
// of each page but the last before it reads the next one, so a cache relisting many objects
// holds one page of them decoded, not all of them until two passes went by. example-apiserver's live heap, for 50,000 ~1 KiB
// Databases created and left unread (example-api/bench/heapprobe -n 50000 -settle 15s), is
// about 1.1 KB per object, against 5.9 KB with every object decoded; of it the cache's
// share (entries, the B-tree, the cold bytes, about 60 bytes for such a Database) is about
// 230 bytes, the rest is etcd's index and the garbage collector's graph.
//
// StorageFactory wraps etcd3's factory so a server caches every resource it stores
// (--watch-cache, --watch-cache-sizes).
package cacher

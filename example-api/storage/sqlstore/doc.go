// Package sqlstore is a storage.Interface over an SQL table in PostgreSQL, through
// database/sql (with the pgx driver, "pgx"): the storage a kind marked
// +apigen:storage=interface can run over, below the generated Store (validation, defaulting,
// admission, field management and paging stay the server's). example-api's BackupRecords are
// kept in it (example-api/apis/db/install/backuprecord_storage.go).
//
// # Tables
//
// New creates, for a table name T (Config.Table):
//
//	T           (key text PRIMARY KEY, namespace, name, resource_version bigint, object jsonb)
//	T_changes   (revision bigint PRIMARY KEY, key, type 'ADDED'|'MODIFIED'|'DELETED', object, prev_object)
//	T_revision  (one row: revision bigint, compacted bigint)
//
// T holds each object's current state, as other SQL users of the database read it: the
// object's JSON in its storage version (without its resourceVersion, which is the
// resource_version column). T_changes is the log of every write, written in the same
// transaction as T: lists at an older revision (continue tokens, resourceVersionMatch=Exact)
// and watches read it.
//
// # resourceVersion
//
// Every write takes the next value of T_revision.revision: a global, monotonically
// increasing revision, as etcd's. It is a counter row rather than a SEQUENCE on purpose: a
// sequence hands out values in the order transactions ask for them, not in the order they
// commit, so a watcher reading "revision > N" could pass a revision whose transaction commits
// later, and lose its event. Incrementing the row takes its lock until the transaction ends,
// so writes commit in revision order and the log has no gaps a reader could skip. The price
// is that writes to one table are serialised (reads are not): fine for the hundreds of writes
// a second an example API sees, not for a hot table.
//
// # Guarantees
//
// The store keeps the contract runtime/storage/storagetest checks (TestConformance runs the
// whole kit against a real PostgreSQL): optimistic concurrency (GuaranteedUpdate writes only
// if the row's resource_version is the one it read, and retries on a lost race; the Store
// turns a stale resourceVersion from a client into 409 Conflict), paging with Kubernetes'
// continue tokens at the first page's revision, and watches from any revision not compacted,
// fed by the log: read at once after a write through the same Store, or through another
// (every write NOTIFYs the channel T_changes in its transaction, and the Store LISTENs on it
// once it has a watch), and every Config.PollInterval in any case (a notification lost with
// a connection). Watches that ask for bookmarks get one every Config.BookmarkInterval while
// idle. Close stops the listener.
//
// # Compaction
//
// The log grows with every write; Compact (and RunCompactor, which a server runs every few
// minutes, as kube-apiserver compacts etcd) trims it, keeping each live object's last change.
// After a compaction at revision C, as after etcd's: a list at a revision before C, or a
// continue token made before C, fails with 410 Gone (Expired; the continue error carries a
// token to go on inconsistently, as kube-apiserver's), and a watch from before C fails with
// 410, so that a client (a reflector) lists again.
package sqlstore

// Package kine serves etcd's API over a SQL database in process with kine
// (github.com/k3s-io/kine, the pinned version is KineVersion), the layer k3s runs in
// production: an apigen server reaches it through the etcd3 store like any etcd, either
// with --etcd-servers pointing at a kine endpoint or with --storage-backend=kine-sqlite,
// which starts kine on SQLite in the data directory instead of the embedded etcd.
//
// Only kine's SQLite and PostgreSQL drivers are linked (not its endpoint package, which
// brings NATS, t4 and MySQL), and only by binaries that import this package: runtime/app
// does not (a server's main registers EmbeddedSQLite in app.StorageBackends).
//
// What kine does not give, compared to etcd (see README "Storage"):
//   - compaction is driven by the API server (Start turns kine's own compactor off): the
//     server's --etcd-compaction-interval compactor runs kube-apiserver's compact_rev_key
//     transaction, which kine recognises, then etcd's Compact, which kine carries out;
//   - serializable reads: kine refuses them (the etcd3 store then reads linearizably);
//   - leases are granted but not kept alive, revoked or reported: keys written with a TTL
//     expire by kine's own polling; no members, authentication, snapshots,
//     defragmentation or alarms;
//   - one kine process per SQLite file; several servers share a PostgreSQL database
//     through kine processes of their own, which learn each other's writes by polling the
//     table every PollInterval (a watch on another kine lags by up to that);
//   - revisions are the table's row ids: the etcd3 store's resourceVersions work as on
//     etcd, but they may skip numbers.
package kine

// Package embedded runs an etcd member inside the current process, on loopback only: a
// single-member cluster by default, or one member of a cluster bootstrapped together
// (Config.InitialCluster; e.g. a benchmark's three members in one process).
//
// A generated API server uses it when no --etcd-servers are given (DESIGN.md section 8), and
// etcdtest uses it to give every storage test a real etcd. Start blocks until the member is
// ready to serve; Close stops it and waits for its goroutines. A data directory that already
// holds a member is reused, so a restarted server keeps its objects.
//
// Defaults suit a development server: etcd's own auto-compaction is off (etcd3.StartCompactor
// compacts instead, as kube-apiserver does), the backend quota is etcd's default (2 GiB), and
// logging is quiet (zap at level "error").
package embedded

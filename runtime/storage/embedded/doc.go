// Package embedded runs a single-member etcd inside the current process, on loopback only.
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

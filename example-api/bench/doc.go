// Package bench measures the example API server against the etcd it stores in: the same
// operations (create, get, update, server-side apply, paged list) at the same concurrency,
// once through the server over HTTP and once directly on etcd with clientv3, so that the
// server's cost shows as a ratio that does not depend on the machine (the speed targets).
//
// The pieces are independent so that the load generator (package main in ./loadgen, run by
// `make bench`) and the tests can combine them:
//
//   - Run drives a closed loop: N clients, each issuing one operation after the other for a
//     warm-up and then a measured period, and returns a Summary (ops/s, p50, p99, errors).
//   - APIClient speaks to the server as client-go does: JSON, one keep-alive connection per
//     client, gzip accepted (and transparently decoded) by net/http's transport. Against
//     several replicas of the server, a RoundRobin shared by all clients sends the n-th
//     request to replica n mod replicas (NewBalancedAPIClient, ScenarioConfig.Replicas).
//   - EtcdOps issues the raw equivalents (Put, Get, Range with a limit) on the same key shapes
//     with values of the same size.
//   - Scenario sets up the objects (1000 to get and list, one per client to update, and one
//     per client to server-side apply) and hands out the Ops of both sides.
//   - MemSampler reads a process's (or several processes' summed) VmRSS and VmHWM from /proc/<pid>/status periodically;
//     ReadCPUTime reads its CPU time from /proc/<pid>/stat (Run's Config.CPUTime).
//   - WriteTable prints the comparison (with the anchor's columns when a Row has them:
//     k8s.io/sample-apiserver on the same etcd, the same workloads on Flunders, APIResource),
//     CheckTargets the targets met and missed, CheckScaleTargets the scale targets, the anchor's
//     among them.
//   - SplitCPUs, WithCPUs and PinProcess place etcd, the server and the load generator on
//     disjoint CPU sets (loadgen's pinned mode).
package bench

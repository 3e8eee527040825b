// Command loadgen measures the example API server against raw etcd, as issue 3's speed
// targets ask: it starts an embedded etcd in a temporary directory, builds and starts
// example-apiserver as a separate process on it (--etcd-servers), samples the server's
// VmRSS every 100ms, and for each operation (create, get, update, list) and concurrency
// (1, 8, 64 clients) runs the operation through the server over HTTP and then directly on
// etcd with clientv3 (one client shared by all, as the server shares one), and prints ops/s,
// p50 and p99 of both, their ratio, the server's CPU time per operation (from
// /proc/<pid>/stat), loadgen's own (etcd and clients) per server and per raw operation, the
// ratio those CPU times predict on a machine the benchmark has to itself (bench.Row.CPURatio:
// other processes' load moves ops/s, not CPU time per operation) and the server's peak RSS,
// then the targets met and missed.
//
//	go run ./example-api/bench/loadgen                     # what `make bench` runs
//	go run ./example-api/bench/loadgen -in-process -cpuprofile cpu.out -ops create -clients 64
//
// -in-process runs the server with app.Run inside loadgen instead, so that a CPU profile
// (-cpuprofile) covers it; RSS and CPU/op are then the whole process's (server, etcd and
// clients) and RSS is not checked. The exit code is 1 when an operation failed or the run
// could not be set up, 0 otherwise (a missed target is reported, not fatal).
package main

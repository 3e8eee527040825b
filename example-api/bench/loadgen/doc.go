// Command loadgen measures the example API server against raw etcd, as the speed targets
// ask: it builds example-apiserver and starts it as a separate process, samples the
// server's VmRSS every 100ms, and for each operation (create, get, update, apply: a
// server-side apply of a changed field, list) and concurrency (1, 8, 64 clients) runs the
// operation through the server and then
// directly on etcd with clientv3 (one client shared by all, as the server shares one), and
// prints ops/s, p50 and p99 of both, their ratio, the server's CPU time per operation (from
// /proc/<pid>/stat), loadgen's own per server and per raw operation, the ratio those CPU
// times predict on a machine the benchmark has to itself (bench.Row.CPURatio: other
// processes' load moves ops/s, not CPU time per operation) and the server's peak RSS, then
// the targets met and missed.
//
// The clients reach the server as kubectl and client-go do (-transport https, the default):
// over HTTPS with the admin client certificate of the kubeconfig the server writes, HTTP/2,
// gzip accepted (the server compresses bodies over 128 KiB, as kube-apiserver); -transport
// http uses --plain-http instead. After the table come the floors (-floor, on by default):
// a second loadgen process that is a Go net/http server doing nothing but the least the
// requests need (bench.FloorServer: every GET answered with the object's bytes, every PUT's
// body fanned out to the watchers as an event), measured with the same clients on the same
// transport: the get rate at the most clients, beside the get row's raw etcd get,
// and each watch fan-out's delivery latencies. No Go server of the API does better on the
// machine with these clients, so a target beyond its floor is out of reach whatever the
// server does. Then come the server's watch fan-outs (-watch
// watchers:writes-per-second pairs, default 0:10, 1000:10, 10000:10 and 64:100, those of 10,000
// watchers or more last, each writing for -watch-duration, by default long enough for the 500
// writes a writer's p99 is compared on (50s at 10 writes/s) and at least 10s, 10s from 10,000
// watchers on: every event decoded by every watcher, p99 latency from just before the
// write, server CPU per event) and the memory figures (RSS a second after start, and with
// -mem-objects more objects of the benchmark's size stored and cached, measured before the
// rows: a server holding the scenario's objects and these, not the tens of thousands the
// create rows write nor the fan-outs' garbage), each with its target. The run's peak RSS, which
// the 400 MB target bounds, is read before the first fan-out of 10,000 watchers or more: those
// have a bound of their own, 1 GB (bench.ScaleMaxFanoutRSS); the line "server peak RSS"
// gives the whole run's.
// -server-args passes more flags to the server, e.g. --watch-cache=false to measure it
// without its watch cache.
//
// -etcd picks where the server's etcd runs. "embedded" (the default) runs the server as it
// runs with no flags, on its own embedded etcd member in its process (which it calls in
// process, see embedded.Server.Client); the raw baseline then runs on a second embedded
// member, in loadgen's own process with its clients (the cheapest path a clientv3 user has),
// holding copies of the objects the server stored (read through the server member's client
// URL), so both sides read the same bytes. The server's CPU time and RSS include its etcd.
// "external" runs the server on loadgen's member over gRPC (--etcd-servers), as replicas
// share an etcd cluster, and the raw baseline on that same member; loadgen's CPU time then
// includes the etcd both sides use. "cluster" runs two replicas of the server (separate
// processes, each with its own data directory, kubeconfig and certificates, started one
// after the other) on a three-member etcd cluster in loadgen's process (three embedded
// members on loopback, Config.InitialCluster), every replica's --etcd-servers naming all
// three; the clients' requests go round robin over the replicas (one bench.RoundRobin: the
// n-th request of any client to replica n mod 2, each client holding a connection to each
// replica with that replica's TLS configuration), and the raw baseline is clientv3 on the
// same cluster through all three members. Server CPU/op and RSS are then the replicas'
// summed (the idle RSS is each replica's), and loadgen's CPU time includes the three
// members; the watch fan-out and the RSS with more objects stored are not measured
// (-watch "" -mem-objects 0).
// `make bench` runs all three; the targets are the default's.
// loadgen runs under the server's GC pacing (runtime/gcpacer, which app.Main starts), so its
// etcd member collects garbage as the server's own does.
//
//	go run ./example-api/bench/loadgen                     # what `make bench` runs
//	go run ./example-api/bench/loadgen -in-process -cpuprofile cpu.out -ops create -clients 64
//	go run ./example-api/bench/loadgen -etcd cluster -clients 64 -ops create,get,update -watch "" -mem-objects 0
//
// -anchor-binary names the anchor, k8s.io/sample-apiserver (AnchorVersion, which `make
// bench-anchor` installs with go install; kube's own apiserver library), measured side by side
// with the server in the embedded and external topologies over HTTPS: it runs standalone on
// loadgen's etcd (the raw side's; --etcd-prefix /anchor), on a free loopback port, with
// client-certificate auth against a CA of loadgen's (the clients present a certificate in
// system:masters) and the flags that let it run without a core kube-apiserver (anchorArgs),
// and gets the same workloads on its wardle.example.com/v1alpha1 Flunders of the same size
// (padded with annotations): every row gets the anchor's ops/s, p50, p99 and server/anchor,
// every fan-out and memory figure the anchor's beside the server's, and the scale targets
// are checked (bench.CheckScaleTargets). Without it the anchor's columns are skipped with a line
// saying so. The fan-outs' watchers share HTTP/2 connections (bench.WatchersPerConnection to
// each), so that 10,000 of them fit; a pair of 0 watchers measures the writer alone, whose
// p99 the 1,000-watcher fan-out's writer is held to.
//
// -pin (auto, the default: on with at least 12 CPUs) places etcd, the server and loadgen on
// disjoint CPU sets (bench.SplitCPUs: etcd 4, the server 4, or 8 with its embedded etcd,
// loadgen the rest), so that a machine with more cores measures the servers rather than the
// contention: loadgen pins its own threads (sched_setaffinity) and starts every child from a
// thread pinned to the child's set (bench.WithCPUs), and its etcd member then runs as a
// process of its own (loadgen -serve-etcd); each Go process's GOMAXPROCS is its set's size.
// The anchor and the floor server run on the server's set. -etcd cluster and -in-process are
// never pinned.
//
// -age N first creates N objects through the server at 64 clients and keeps them (namespace
// bench-aged), so that every row, fan-out and memory figure after it is an aged server's: its
// storage, watch cache and etcd history hold them, as a server's do after a long life of
// writes. Held against a run without -age (the same flags otherwise), it shows whether
// latency grows with what was written (the aged-server targets: get and create p99 at 64
// clients at most 2x a fresh server's); the line it prints gives the creates' rate and the
// server's peak RSS while they ran.
//
// -field-management-cost then measures updates on the server and on a second server started
// with --feature-gates=ServerSideApply=false, alternately, three times each per concurrency,
// and prints the median server CPU time per update with and without field management, and
// field management's share of it (the target: at most 25%).
//
// -in-process runs the server with app.Run inside loadgen instead, so that a CPU profile
// (-cpuprofile) covers it; RSS and CPU/op are then the whole process's (server, etcds and
// clients) and RSS is not checked. The exit code is 1 when an operation failed or the run
// could not be set up, 0 otherwise (a missed target is reported, not fatal).
package main

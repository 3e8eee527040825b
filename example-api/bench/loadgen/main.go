package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
	"github.com/apigen-dev/apigen/runtime/gcpacer"
)

// etcdPrefix is the server's --etcd-prefix (its default).
const etcdPrefix = "/registry"

// sampleInterval is how often the server's RSS is sampled.
const sampleInterval = 100 * time.Millisecond

// options are loadgen's flags.
type options struct {
	clients      []int
	ops          []string
	warmup       time.Duration
	measure      time.Duration
	objects      int
	pageSize     int64
	objectSize   int
	serverBinary string
	inProcess    bool
	cpuProfile   string
	memProfile   string
	noFsync      bool
	// etcd is the topology: etcdEmbedded, etcdExternal or etcdCluster.
	etcd string
	// https serves over HTTPS, the clients presenting the admin certificate of the server's
	// kubeconfig (-transport https, the default); otherwise plain HTTP.
	https bool
	// watches are the watch fan-outs to measure, in bench.OrderFanouts' order; watchDuration
	// how long each writes (0: bench.FanoutDuration's; see fanoutDuration).
	watches       []bench.WatchTarget
	watchDuration time.Duration
	// memObjects is how many objects the memory figure stores (0: no figure).
	memObjects int
	// serverArgs are more flags for the server, e.g. --watch-cache=false.
	serverArgs []string
	// fmCost also measures updates without field management (fieldManagementCost).
	fmCost bool
	// floor also measures the get row's floor (measureFloor).
	floor bool
	// anchorBinary is k8s.io/sample-apiserver's binary, measured side by side with the
	// server ("": not measured, see anchorSkip).
	anchorBinary string
	// pin is -pin: pinAuto, pinOn or pinOff (pinning).
	pin string
	// age is how many objects age the server before the rows (0: a fresh server).
	age int
}

// The topologies -etcd selects.
const (
	// etcdEmbedded runs the server as it runs by default, on the embedded etcd member in its
	// own process; the raw baseline runs on a separate member embedded in loadgen.
	etcdEmbedded = "embedded"
	// etcdExternal runs the server on loadgen's embedded member (--etcd-servers), as
	// replicas share an etcd cluster; the raw baseline runs on that same member.
	etcdExternal = "external"
	// etcdCluster runs clusterReplicas replicas of the server behind one client-side round
	// robin, on a cluster of clusterMembers members embedded in loadgen (--etcd-servers
	// naming all of them); the raw baseline runs on the same cluster, through all members.
	etcdCluster = "cluster"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// loadgen's etcd member (the raw side's) collects garbage as the server's own member
	// does, under the server's GC pacing (app.Main starts the same), not Go's default.
	gcpacer.Start(gcpacer.DefaultHeadroom)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the benchmark and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == serveEtcdArg {
		if err := serveEtcd(ctx, args[1:], stdout); err != nil {
			fmt.Fprintf(stderr, "loadgen etcd: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) == 2 && args[0] == serveFloorArg {
		if err := serveFloor(ctx, args[1], stdout); err != nil {
			fmt.Fprintf(stderr, "loadgen floor server: %v\n", err)
			return 1
		}
		return 0
	}
	opts, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 2
	}
	if err := benchmark(ctx, opts, stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	return 0
}

// ageClients is how many clients create -age's objects.
const ageClients = 64

// parseFlags parses and checks args.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	clients := fs.String("clients", "1,8,64", "comma-separated concurrencies to measure")
	ops := fs.String("ops", strings.Join(bench.Ops, ","), "comma-separated operations to measure: "+strings.Join(bench.Ops, ", "))
	fs.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "unmeasured warm-up before each measurement")
	fs.DurationVar(&o.measure, "duration", 3*time.Second, "measured period of each operation, concurrency and side (server, raw)")
	fs.IntVar(&o.objects, "objects", 1000, "objects that get and list read")
	fs.Int64Var(&o.pageSize, "page-size", 500, "limit of each list page; 0 lists unpaginated (no limit)")
	fs.IntVar(&o.objectSize, "object-size", 1024, "approximate size of an object's JSON in bytes")
	fs.StringVar(&o.serverBinary, "server-binary", "", "example-apiserver binary to run; empty builds it with go build")
	fs.BoolVar(&o.inProcess, "in-process", false, "run the server inside loadgen with app.Run (for -cpuprofile); RSS is then not checked")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of loadgen (with -in-process: server included) to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write an allocation profile of loadgen (with -in-process: server included) to this file at the end")
	fs.StringVar(&o.etcd, "etcd", etcdEmbedded, "where the server's etcd runs: \"embedded\" (its own member, in its process, as by default; "+
		"the raw baseline then runs on a separate member in loadgen), \"external\" (loadgen's member, via --etcd-servers, shared with the raw baseline) "+
		"or \"cluster\" (2 server replicas behind one client-side round robin, on a 3-member etcd cluster in loadgen shared with the raw baseline; "+
		"needs -watch '' and -mem-objects 0)")
	fs.BoolVar(&o.noFsync, "etcd-unsafe-no-fsync", false, "run loadgen's embedded etcd without fsync (with -etcd external or cluster only)")
	transport := fs.String("transport", "https", "how clients reach the server: \"https\" (the admin client certificate of its kubeconfig, HTTP/2, gzip accepted, as client-go) or \"http\" (--plain-http)")
	watches := fs.String("watch", "0:10,1000:10,10000:10,64:100", "watch fan-outs to measure, comma-separated watchers:writes-per-second "+
		"(0 watchers: the writer alone, the baseline of its latency); empty for none")
	fs.DurationVar(&o.watchDuration, "watch-duration", 0, "how long each watch fan-out writes; 0: long enough for the 500 writes a writer's p99 is compared on "+
		"(50s at 10 writes/s) and at least 10s, and 10s for 10000 watchers or more")
	fs.IntVar(&o.memObjects, "mem-objects", bench.MemObjects, "objects to store for the memory figure (RSS with them cached); 0 for none")
	serverArgs := fs.String("server-args", "", "more server flags, space-separated (e.g. --watch-cache=false to measure without the watch cache)")
	fs.BoolVar(&o.fmCost, "field-management-cost", false, "after the update rows, measure updates on the server and on a second server with field management off "+
		"("+noFieldManagement+"), alternately, and print the median server CPU/op with and without it (-etcd embedded only)")
	fs.BoolVar(&o.floor, "floor", true, "after the table, measure the floors of get and of the watch fan-outs: a Go net/http server that only answers each GET "+
		"with the object's bytes and fans each PUT's body out to its watchers, on the same transport and clients (what no Go server of the API exceeds on this machine)")
	fs.StringVar(&o.anchorBinary, "anchor-binary", "", "k8s.io/sample-apiserver "+AnchorVersion+" binary (make bench-anchor) to measure side by side with the server "+
		"on the benchmark's etcd: the same workloads on its Flunders; empty skips the anchor's columns")
	fs.StringVar(&o.pin, "pin", pinAuto, "place etcd, the server and loadgen on disjoint CPU sets (etcd 4 CPUs, the server 4 or 8 with its embedded etcd, "+
		"loadgen the rest; GOMAXPROCS the set's size): \"on\", \"off\" or \"auto\" (on with at least 12 CPUs)")
	fs.IntVar(&o.age, "age", 0, "objects to create through the server (kept, "+strconv.Itoa(ageClients)+" clients, namespace bench-aged) before anything is measured, "+
		"so that every figure is an aged server's (e.g. 500000, to hold against a run without it); not with -anchor-binary, which would stay fresh")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.pin != pinAuto && o.pin != pinOn && o.pin != pinOff {
		return nil, fmt.Errorf("-pin: %q is none of auto, on and off", o.pin)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-clients: %q is not a positive integer", s)
		}
		o.clients = append(o.clients, n)
	}
	for _, s := range strings.Split(*ops, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(bench.Ops, s) {
			return nil, fmt.Errorf("-ops: unknown operation %q, want one of %s", s, strings.Join(bench.Ops, ", "))
		}
		o.ops = append(o.ops, s)
	}
	switch *transport {
	case "https":
		o.https = true
	case "http":
	default:
		return nil, fmt.Errorf("-transport: %q is neither https nor http", *transport)
	}
	o.serverArgs = strings.Fields(*serverArgs)
	var err error
	if o.watches, err = parseWatches(*watches); err != nil {
		return nil, err
	}
	o.watches = bench.OrderFanouts(o.watches)
	if err := checkTopology(o); err != nil {
		return nil, err
	}
	if o.age < 0 || (o.age > 0 && o.anchorBinary != "") {
		return nil, errors.New("-age: objects must not be negative, and an aged server is held to itself fresh, not to the anchor: drop -anchor-binary")
	}
	if o.measure <= 0 || o.warmup < 0 || o.objects < 1 || o.pageSize < 0 {
		return nil, errors.New("-duration and -objects must be positive, -warmup and -page-size not negative")
	}
	return o, nil
}

// benchmark runs the whole benchmark as the command doc describes and prints the results.
func benchmark(ctx context.Context, o *options, out io.Writer) (err error) {
	dir, err := os.MkdirTemp("", "apigen-loadgen-")
	if err != nil {
		return fmt.Errorf("cannot create temporary directory: %w", err)
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()

	if o.memProfile != "" {
		defer func() { err = errors.Join(err, writeAllocs(o.memProfile)) }()
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fmt.Errorf("cannot create CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cannot start CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	sets, pinLine, err := pinning(o)
	if err != nil {
		return err
	}

	bin := o.serverBinary
	if bin == "" && !o.inProcess {
		if bin, err = serverproc.Build(ctx, dir); err != nil {
			return err
		}
	}
	if sets != nil {
		// loadgen's own threads, its clients' from now on, on its set.
		if err := bench.PinProcess(sets.Loadgen); err != nil {
			return err
		}
	}
	etcdEndpoints, etcdPID, closeEtcd, err := startEtcd(ctx, o, dir, sets) // loadgen's etcd, the raw side's and the anchor's
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeEtcd()) }()
	client, err := dialEtcd(etcdEndpoints)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, client.Close()) }()

	var serverEtcd []string // the server's --etcd-servers; none runs its embedded member
	if o.etcd != etcdEmbedded {
		serverEtcd = etcdEndpoints
	}
	// Each binary starts with its page cache dropped, so that its file-backed RSS counts the
	// pages it reads, not the whole image a fresh build or unpacking left cached.
	var binaries []string
	if !o.inProcess { // -in-process runs no server binary
		binaries = append(binaries, bin)
	}
	if anchorSkip(o) == "" {
		binaries = append(binaries, o.anchorBinary)
	}
	for _, b := range binaries {
		if err := bench.DropPageCache(b); err != nil {
			return err
		}
	}
	var servers []*apiServer
	err = withCPUs(serverCPUs(o, sets), func() (err error) {
		servers, err = startServers(ctx, o, bin, dir, serverEtcd)
		return err
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopAll(servers)) }()
	srv := servers[0]
	serverClient := client
	if o.etcd == etcdEmbedded {
		if srv.embeddedEtcd == "" {
			return errors.New("the server's readiness line names no embedded etcd client URL")
		}
		if serverClient, err = dialEtcd([]string{srv.embeddedEtcd}); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, serverClient.Close()) }()
	}
	var anchor *anchorRun
	if anchorSkip(o) == "" {
		var anchorCPUs []int
		if sets != nil {
			anchorCPUs = sets.Server
		}
		if anchor, err = startAnchorRun(ctx, o.anchorBinary, filepath.Join(dir, "anchor"), etcdEndpoints, anchorCPUs); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, anchor.stop()) }()
	}
	mem, err := bench.StartMemSamplerSum(pids(servers), sampleInterval)
	if err != nil {
		return err
	}
	defer mem.Stop()
	idle, idleErr := idleRSS(ctx, pids(servers))
	if anchor != nil {
		if anchor.idle, err = bench.ReadMemStatus(anchor.srv.pid); err != nil {
			return err
		}
	}

	// The connections of every client stay open until the benchmark ends, as long-lived
	// clients' do; cancel closes them.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	scfg := bench.ScenarioConfig{
		ObjectSize: o.objectSize, Objects: o.objects, PageSize: o.pageSize, MaxClients: slices.Max(o.clients),
		Etcd: bench.NewEtcdOps(client, etcdPrefix), ServerEtcd: bench.NewEtcdOps(serverClient, etcdPrefix),
		// Objects to apply to only when apply is measured: a server run with
		// --feature-gates=ServerSideApply=false (for a profile) can then measure the rest.
		NoApply: !slices.Contains(o.ops, bench.OpApply),
	}
	if len(servers) > 1 {
		scfg.Replicas = endpoints(servers)
	} else {
		scfg.ServerURL, scfg.TLS = srv.url, srv.tls
	}
	scenario, err := bench.NewScenario(runCtx, scfg)
	if err != nil {
		return err
	}
	if anchor != nil {
		acfg := scfg
		acfg.Resource, acfg.ServerURL, acfg.TLS, acfg.Etcd = bench.Flunders, anchor.srv.url, anchor.srv.tls, nil
		acfg.ServerEtcd = bench.NewEtcdOpsFor(client, anchorPrefix, bench.Flunders)
		if anchor.scenario, err = bench.NewScenario(runCtx, acfg); err != nil {
			return fmt.Errorf("anchor: %w", err)
		}
	}
	if o.age > 0 {
		start := time.Now()
		if err := scenario.Age(runCtx, o.age, ageClients); err != nil {
			return fmt.Errorf("cannot age the server: %w", err)
		}
		d := time.Since(start)
		fmt.Fprintf(out, "aged: %d objects created (kept) through the server at %d clients in %s (%.0f/s) before the rows; server peak RSS so far %.1f MiB\n",
			o.age, ageClients, d.Round(time.Millisecond), float64(o.age)/d.Seconds(), float64(mem.TakePeak())/(1<<20))
	}
	switch o.etcd {
	case etcdEmbedded:
		fmt.Fprintf(out, "loadgen: server %s (%s) on its own embedded etcd (in process; client URL %s); raw: clientv3 on a separate embedded etcd %s "+
			"in loadgen, holding copies of the server's stored objects\n", srv.url, mode(o), srv.embeddedEtcd, etcdEndpoints[0])
	case etcdExternal:
		fmt.Fprintf(out, "loadgen: server %s (%s) on loadgen's embedded etcd %s (--etcd-servers); raw: clientv3 on the same etcd\n",
			srv.url, mode(o), etcdEndpoints[0])
	case etcdCluster:
		clusterHeader(out, servers, etcdEndpoints)
	}
	anchorHeader(out, o, anchor, etcdEndpoints)
	fmt.Fprintln(out, pinLine)
	fmt.Fprintf(out, "etcd fsync %s; %d-byte stored objects; %s measured after %s warm-up per cell\n",
		onOff(!o.noFsync), scenario.ObjectBytes(), o.measure, o.warmup)
	if o.pageSize == 0 {
		fmt.Fprintf(out, "list = all %d objects unpaginated (server: GET without limit; raw: one Range without limit)\n", o.objects)
	} else {
		fmt.Fprintf(out, "list = all %d objects in pages of %d (server: GET ?limit&continue; raw: Range with limit at the first page's revision)\n",
			o.objects, o.pageSize)
	}
	fmt.Fprintf(out, "server CPU/op = CPU time of the %s over the measured period / operations\n", cpuScope(o))
	fmt.Fprintf(out, "loadgen CPU/op, raw CPU/op = the same for loadgen (clients and its etcd%s) in the server run and in the raw run;\n"+
		"CPU ratio = raw CPU/op / (server CPU/op + loadgen CPU/op), the ratio on an otherwise idle machine\n", etcdScope(o))
	fmt.Fprintf(out, "server RSS MiB = the peak of the %s VmRSS, sampled every %s, in the row's server run\n\n", rssScope(o), sampleInterval)

	stored, err := measureStored(runCtx, o, scenario, srv.pid, anchor)
	if err != nil {
		return err
	}
	serverCPU := cpuTimeSum(pids(servers))
	loadPIDs := []int{os.Getpid()}
	if etcdPID != 0 {
		loadPIDs = append(loadPIDs, etcdPID) // loadgen's etcd, in a process of its own when pinned
	}
	rows, failed, err := measureAll(runCtx, o, scenario, mem, serverCPU, cpuTimeSum(loadPIDs), anchor)
	if err != nil {
		return err
	}
	if err := bench.WriteTable(out, rows); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if o.floor && (slices.Contains(o.ops, bench.OpGet) || len(o.watches) > 0) {
		if err := measureFloor(runCtx, o, filepath.Join(dir, "floor"), scenario, rows, out, sets); err != nil {
			return fmt.Errorf("cannot measure the floors: %w", err)
		}
	}
	fig, err := figures(runCtx, o, out, scenario, servers, idle, idleErr, stored, serverCPU, mem, anchor)
	if err != nil {
		return err
	}
	peak, samples, last := mem.Peak()
	fmt.Fprintln(out)
	var checkedRSS uint64
	switch {
	case o.inProcess:
		fmt.Fprintf(out, "RSS of loadgen with the server in process (etcd and clients included, not checked): peak VmRSS %.1f MiB, VmHWM %.1f MiB (%d samples)\n",
			float64(peak)/(1<<20), float64(last.HWM)/(1<<20), samples)
	case len(servers) > 1:
		fmt.Fprintf(out, "server peak RSS, the %d replicas' summed (not checked: the target is one server's): VmRSS %.1f MiB sampled every %s (%d samples), "+
			"VmHWM summed %.1f MiB\n", len(servers), float64(peak)/(1<<20), sampleInterval, samples, float64(last.HWM)/(1<<20))
	default:
		fmt.Fprintf(out, "server peak RSS: VmRSS %.1f MiB sampled every %s (%d samples), VmHWM %.1f MiB\n",
			float64(peak)/(1<<20), sampleInterval, samples, float64(last.HWM)/(1<<20))
		checkedRSS = max(peak, last.HWM)
	}
	if err := mem.Err(); err != nil {
		return fmt.Errorf("server memory sampling stopped early: %w", err)
	}
	if anchor != nil {
		anchorPeak, err := anchor.peakRSS(out)
		if err != nil {
			return err
		}
		if fig.AnchorPeakRSS == 0 {
			fig.AnchorPeakRSS = anchorPeak
		}
	}
	switch o.etcd {
	case etcdExternal:
		fmt.Fprintln(out, "the server on an external etcd: the targets below are for comparison (they are the embedded topology's, -etcd embedded)")
	case etcdCluster:
		fmt.Fprintf(out, "%d replicas on a %d-member etcd: the targets below are for comparison (they are the single server's on its embedded etcd, -etcd embedded)\n",
			clusterReplicas, clusterMembers)
	}
	bench.CheckTargets(out, rows, bench.IssueTargets, checkedRSS)
	if !o.inProcess && len(servers) == 1 {
		fig.Rows, fig.Embedded = rows, o.etcd == etcdEmbedded
		if fig.PeakRSS == 0 { // else read before the fan-outs bounded on their own (peaksBefore)
			fig.PeakRSS = checkedRSS
		}
		fmt.Fprintln(out)
		bench.CheckScaleTargets(out, fig)
	}
	if failed != nil {
		return fmt.Errorf("operations failed: %w", failed)
	}
	if o.fmCost {
		return fieldManagementCost(runCtx, o, bin, dir, scenario, serverCPU, out)
	}
	return nil
}

// measureAll runs every operation at every concurrency, through the server, through the
// anchor (when not nil) and then raw, and returns the rows and the first operation error seen
// (nil when every operation succeeded). mem (and the anchor's) is reset around each run for
// the row's peak RSS; serverCPU reads the server's cumulative CPU time, loadCPU loadgen's
// (its etcd's included).
func measureAll(ctx context.Context, o *options, s *bench.Scenario, mem *bench.MemSampler,
	serverCPU, loadCPU func() (time.Duration, error), anchor *anchorRun) ([]bench.Row, error, error) {
	var rows []bench.Row
	var failed error
	for _, op := range o.ops {
		for _, clients := range o.clients {
			cfg := bench.Config{Clients: clients, Warmup: o.warmup, Measure: o.measure}
			row := bench.Row{Op: op, Clients: clients}
			newOp, err := s.ServerOp(ctx, op)
			if err != nil {
				return nil, nil, err
			}
			mem.TakePeak()
			if !o.inProcess { // in process, the server's CPU time is the load generator's too
				cfg.LoadCPUTime = loadCPU
			}
			serverCfg := cfg
			serverCfg.CPUTime = serverCPU
			if row.Server, err = bench.Run(ctx, serverCfg, newOp); err != nil {
				return nil, nil, err
			}
			row.ServerPeakRSS = mem.TakePeak()
			if anchor != nil {
				if err := anchor.measure(ctx, cfg, op, &row); err != nil {
					return nil, nil, err
				}
			}
			if newOp, err = s.RawOp(op); err != nil {
				return nil, nil, err
			}
			if row.Raw, err = bench.Run(ctx, cfg, newOp); err != nil {
				return nil, nil, err
			}
			for _, sum := range []bench.Summary{row.Server, row.Anchor, row.Raw} {
				if sum.FirstError != nil && failed == nil {
					failed = fmt.Errorf("%s at %d clients: %d errors, first: %w", op, clients, sum.Errors, sum.FirstError)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, failed, nil
}

// mode describes how the server runs.
func mode(o *options) string {
	if o.inProcess {
		return "in process"
	}
	return "separate process"
}

// cpuScope names the process whose CPU time is the server's.
func cpuScope(o *options) string {
	switch {
	case o.inProcess:
		return "whole loadgen process (server, etcds and clients: -in-process)"
	case o.etcd == etcdEmbedded:
		return "server process (its embedded etcd included)"
	case o.etcd == etcdCluster:
		return fmt.Sprintf("%d replica processes, summed", clusterReplicas)
	}
	return "server process"
}

// rssScope names the processes whose VmRSS is the server's RSS column.
func rssScope(o *options) string {
	switch {
	case o.inProcess:
		return "whole loadgen process's (-in-process)"
	case o.etcd == etcdCluster:
		return fmt.Sprintf("%d replica processes' summed", clusterReplicas)
	}
	return "server process's"
}

// etcdScope says which etcd runs in loadgen, as part of loadgen's CPU time.
func etcdScope(o *options) string {
	if o.etcd == etcdCluster {
		return fmt.Sprintf(": all %d members of the cluster", clusterMembers)
	}
	return ""
}

// onOff renders a boolean as "on" or "off".
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// writeAllocs writes the allocation profile (pprof "allocs": inuse and alloc space by site)
// of the process to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create memory profile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("cannot write memory profile: %w", err)
	}
	return f.Close()
}

// fanoutDuration is how long fan-out t writes: -watch-duration, or bench.FanoutDuration's
// when it is 0.
func fanoutDuration(o *options, t bench.WatchTarget) time.Duration {
	if o.watchDuration > 0 {
		return o.watchDuration
	}
	return bench.FanoutDuration(t)
}

// parseWatches parses -watch: comma-separated watchers:rate pairs, each with its target
// (bench.WatchTargets' p99 for a pair it names, else the strictest).
func parseWatches(spec string) ([]bench.WatchTarget, error) {
	var out []bench.WatchTarget
	for _, p := range strings.Split(spec, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		w, r, ok := strings.Cut(p, ":")
		watchers, err1 := strconv.Atoi(w)
		rate, err2 := strconv.ParseFloat(r, 64)
		if !ok || err1 != nil || err2 != nil || watchers < 0 || rate <= 0 {
			return nil, fmt.Errorf("-watch: %q is not watchers:writes-per-second", p)
		}
		t := bench.WatchTarget{Watchers: watchers, Rate: rate, MaxP99: 5 * time.Millisecond}
		for _, known := range bench.WatchTargets {
			if known.Watchers == watchers && known.Rate == rate {
				t.MaxP99 = known.MaxP99
			}
		}
		out = append(out, t)
	}
	return out, nil
}

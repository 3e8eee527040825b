package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
)

// The topology -etcd cluster measures: clusterReplicas replicas of the server, each a
// separate process with its own data directory, behind one client-side round robin, all
// on one etcd cluster of clusterMembers members embedded in loadgen.
const (
	clusterMembers  = 3
	clusterReplicas = 2
)

// startReplicas starts n server processes of bin, replica i with data directory
// <dir>/replica-<i> (its own kubeconfig, CA and admin certificate), all on etcdServers with
// the same --etcd-prefix (etcdPrefix) and extra flags. They start one after the other: each begins once the
// one before is ready, so that no two bootstrap the shared etcd (system namespaces, default
// RBAC roles) at once. On error the replicas started are stopped.
func startReplicas(ctx context.Context, bin, dir string, n int, etcdServers []string, https bool, extra []string) ([]*apiServer, error) {
	var replicas []*apiServer
	flags := append([]string{"--etcd-prefix", etcdPrefix}, extra...)
	for i := range n {
		srv, err := startServerProcess(ctx, bin, filepath.Join(dir, fmt.Sprintf("replica-%d", i)), etcdServers, https, flags)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("replica %d: %w", i, err), stopAll(replicas))
		}
		replicas = append(replicas, srv)
	}
	return replicas, nil
}

// stopAll stops servers, all at once.
func stopAll(servers []*apiServer) error {
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { errs[i] = s.stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// endpoints returns the servers as the round robin's replicas.
func endpoints(servers []*apiServer) []bench.Endpoint {
	var out []bench.Endpoint
	for _, s := range servers {
		out = append(out, bench.Endpoint{URL: s.url, TLS: s.tls})
	}
	return out
}

// pids returns the processes of servers.
func pids(servers []*apiServer) []int {
	var out []int
	for _, s := range servers {
		out = append(out, s.pid)
	}
	return out
}

// cpuTimeSum returns a reader of the cumulative CPU time of processes pids, summed.
func cpuTimeSum(pids []int) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		var sum time.Duration
		for _, pid := range pids {
			d, err := bench.ReadCPUTime(pid)
			if err != nil {
				return 0, err
			}
			sum += d
		}
		return sum, nil
	}
}

// urls returns the servers' URLs.
func urls(servers []*apiServer) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.url)
	}
	return out
}

// checkTopology checks -etcd and the flags that depend on it.
func checkTopology(o *options) error {
	switch o.etcd {
	case etcdEmbedded:
		if o.noFsync {
			// The server's own member always syncs: the sides would not compare.
			return errors.New("-etcd-unsafe-no-fsync needs -etcd external or cluster (the server's embedded etcd always fsyncs)")
		}
	case etcdExternal:
	case etcdCluster:
		// The replicas are processes of their own; the watch fan-out and the memory
		// figures are one server's.
		switch {
		case o.inProcess:
			return errors.New("-etcd cluster runs the replicas as processes: -in-process does not apply")
		case o.fmCost:
			return errors.New("-field-management-cost needs -etcd embedded, not cluster")
		case len(o.watches) > 0:
			return errors.New("-etcd cluster measures no watch fan-out: pass -watch ''")
		case o.memObjects > 0:
			return errors.New("-etcd cluster measures no memory figure: pass -mem-objects 0")
		}
	default:
		return fmt.Errorf("-etcd: %q is none of %q, %q and %q", o.etcd, etcdEmbedded, etcdExternal, etcdCluster)
	}
	return nil
}

// startServers starts the server as o asks, with data directories in dir, against
// etcdServers (none: its embedded etcd): in process, as one process of bin, or as
// clusterReplicas processes of bin (-etcd cluster).
func startServers(ctx context.Context, o *options, bin, dir string, etcdServers []string) ([]*apiServer, error) {
	var srv *apiServer
	var err error
	switch {
	case o.inProcess:
		srv, err = startServerInProcess(ctx, filepath.Join(dir, "server"), etcdServers, o.https, o.serverArgs)
	case o.etcd == etcdCluster:
		return startReplicas(ctx, bin, dir, clusterReplicas, etcdServers, o.https, o.serverArgs)
	default:
		srv, err = startServerProcess(ctx, bin, filepath.Join(dir, "server"), etcdServers, o.https, o.serverArgs)
	}
	if err != nil {
		return nil, err
	}
	return []*apiServer{srv}, nil
}

// clusterHeader writes the topology line of -etcd cluster.
func clusterHeader(out io.Writer, replicas []*apiServer, etcdEndpoints []string) {
	fmt.Fprintf(out, "loadgen: %d server replicas (separate processes, each with its own data directory and kubeconfig: %s) "+
		"behind one client-side round robin (the n-th request of any client to replica n mod %d, each client with a connection to each), "+
		"on a %d-member etcd cluster in loadgen (--etcd-servers %s, --etcd-prefix %s); raw: clientv3 on the same cluster, through all %d members\n",
		len(replicas), strings.Join(urls(replicas), ", "), len(replicas), len(etcdEndpoints), strings.Join(etcdEndpoints, ","), etcdPrefix, len(etcdEndpoints))
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// The topology -etcd cluster measures: clusterReplicas replicas of the server, each a
// separate process with its own data directory, behind one client-side round robin, all
// on one etcd cluster of clusterMembers members embedded in loadgen.
const (
	clusterMembers  = 3
	clusterReplicas = 2
)

// clusterStartAttempts is how many times startEtcdCluster picks new peer ports when one it
// picked was taken before its member listened on it.
const clusterStartAttempts = 3

// clusterEtcd is -etcd cluster's etcd: members embedded in loadgen's process, configured as
// one cluster on loopback ports.
type clusterEtcd struct {
	members []*embedded.Server
}

// startEtcdCluster starts n members in subdirectories of dir as one cluster (all at once:
// each waits for a quorum), on free loopback ports. On error nothing is left running.
func startEtcdCluster(ctx context.Context, dir string, n int, noFsync bool) (*clusterEtcd, error) {
	for attempt := 1; ; attempt++ {
		c, err := tryEtcdCluster(ctx, filepath.Join(dir, fmt.Sprintf("etcd-cluster-%d", attempt)), n, noFsync)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || attempt == clusterStartAttempts {
			return c, err
		}
	}
}

// tryEtcdCluster is one attempt of startEtcdCluster.
func tryEtcdCluster(ctx context.Context, dir string, n int, noFsync bool) (*clusterEtcd, error) {
	peers := make([]string, n)
	pairs := make([]string, n)
	for i := range n {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		peers[i] = fmt.Sprintf("http://127.0.0.1:%d", port)
		pairs[i] = fmt.Sprintf("%s=%s", memberName(i), peers[i])
	}
	// A member that fails leaves the others waiting for their quorum: stop them all.
	ctx, cancel := context.WithTimeout(ctx, embedded.DefaultStartTimeout)
	defer cancel()
	c := &clusterEtcd{members: make([]*embedded.Server, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c.members[i], errs[i] = embedded.Start(ctx, embedded.Config{
				DataDir: filepath.Join(dir, memberName(i)), Name: memberName(i), PeerURL: peers[i],
				InitialCluster: strings.Join(pairs, ","), LogLevel: "fatal", UnsafeNoFsync: noFsync,
			})
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// The cause first: the other members mostly report the cancellation it caused.
		for _, e := range errs {
			if e != nil && !errors.Is(e, context.Canceled) {
				err = e
				break
			}
		}
		return nil, errors.Join(fmt.Errorf("cannot start a %d-member etcd cluster: %w", n, err), c.Close())
	}
	return c, nil
}

// memberName names the cluster's i-th member.
func memberName(i int) string { return fmt.Sprintf("loadgen-%d", i) }

// Endpoints returns the client URLs of every member.
func (c *clusterEtcd) Endpoints() []string {
	var eps []string
	for _, m := range c.members {
		eps = append(eps, m.Endpoints()...)
	}
	return eps
}

// Close stops the members that started, all at once (each waits up to a second for its
// peers' connections to close).
func (c *clusterEtcd) Close() error {
	errs := make([]error, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		if m != nil {
			wg.Go(func() { errs[i] = m.Close() })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

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

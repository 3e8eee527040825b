package embedded

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// clusterAttempts is how many times StartCluster starts a cluster again on new peer ports
// when one it picked was taken before its member listened on it.
const clusterAttempts = 3

// StartCluster starts n members as one cluster on 127.0.0.1, for tests and benchmarks that
// need a real multi-member etcd in one process: member i is named "<member.Name or
// apigen>-<i>", keeps its data in dir/attempt-<k>/<name> (k counts the attempts below), and
// listens on free loopback ports (peer and client), with member's other settings (log level, fsync, TLS, ...); member.Name,
// DataDir, PeerURL, ClientURL and InitialCluster are ignored. The members start together,
// as each waits for a quorum; when one fails the others are stopped. A peer port found free
// may be taken before its member binds it (by another process, or an outgoing
// connection's ephemeral port); the cluster then starts again on new ports, up to three
// times. It returns the cluster, or an error (the first member's own error, not the
// cancellation it caused in the others) with nothing left running.
func StartCluster(ctx context.Context, dir string, n int, member Config) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("cannot start an etcd cluster of %d members", n)
	}
	for attempt := 1; ; attempt++ {
		c, err := startClusterOnce(ctx, filepath.Join(dir, fmt.Sprintf("attempt-%d", attempt)), n, member)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || attempt == clusterAttempts {
			return c, err
		}
	}
}

// Cluster is the members StartCluster started.
type Cluster struct {
	// Members are the cluster's members, in the order of their names; a fault test may
	// stop one (Server.Close).
	Members []*Server
}

// Endpoints returns every member's client URLs.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, m.Endpoints()...)
	}
	return eps
}

// Close stops every member, all at once (each waits up to a second for its peers'
// connections to close), and returns their errors joined. Closing a member twice is safe.
func (c *Cluster) Close() error {
	errs := make([]error, len(c.Members))
	var wg sync.WaitGroup
	for i, m := range c.Members {
		if m != nil {
			wg.Go(func() { errs[i] = m.Close() })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// startClusterOnce is one attempt of StartCluster.
func startClusterOnce(ctx context.Context, dir string, n int, member Config) (*Cluster, error) {
	prefix, scheme := member.Name, "http://"
	if prefix == "" {
		prefix = defaultName
	}
	if member.TLS != nil {
		scheme = "https://"
	}
	names, peers, pairs := make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		port, err := pickPort()
		if err != nil {
			return nil, err
		}
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
		peers[i] = fmt.Sprintf("%s127.0.0.1:%d", scheme, port)
		pairs[i] = names[i] + "=" + peers[i]
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, errs := &Cluster{Members: make([]*Server, n)}, make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cfg := member
		cfg.Name, cfg.DataDir, cfg.PeerURL, cfg.ClientURL = names[i], filepath.Join(dir, names[i]), peers[i], ""
		cfg.InitialCluster = strings.Join(pairs, ",")
		wg.Go(func() {
			if c.Members[i], errs[i] = Start(ctx, cfg); errs[i] != nil {
				cancel() // the others would wait for a quorum that cannot form
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
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

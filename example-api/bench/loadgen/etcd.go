package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// startEtcd starts loadgen's etcd in dir: one embedded member, or with -etcd cluster a
// cluster of clusterMembers. Pinned (sets not nil), the member is a process of its own on
// sets.Etcd (startEtcdProcess), whose pid it returns (0: in loadgen). It returns the client
// URLs of every member and the function that stops them.
func startEtcd(ctx context.Context, o *options, dir string, sets *bench.CPUSets) ([]string, int, func() error, error) {
	if o.etcd == etcdCluster {
		cluster, err := embedded.StartCluster(ctx, dir, clusterMembers, embedded.Config{Name: "loadgen", LogLevel: "fatal", UnsafeNoFsync: o.noFsync})
		if err != nil {
			return nil, 0, nil, err
		}
		return cluster.Endpoints(), 0, cluster.Close, nil
	}
	if sets != nil {
		endpoints, p, err := startEtcdProcess(ctx, filepath.Join(dir, "etcd"), o.noFsync, sets.Etcd)
		if err != nil {
			return nil, 0, nil, err
		}
		return endpoints, p.cmd.Process.Pid, p.stop, nil
	}
	etcd, err := embedded.Start(ctx, embedded.Config{DataDir: filepath.Join(dir, "etcd"), LogLevel: "fatal", UnsafeNoFsync: o.noFsync})
	if err != nil {
		return nil, 0, nil, err
	}
	return etcd.Endpoints(), 0, etcd.Close, nil
}

// dialEtcd returns a clientv3 client of endpoints.
func dialEtcd(endpoints []string) (*clientv3.Client, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("cannot connect to etcd %s: %w", strings.Join(endpoints, ","), err)
	}
	return client, nil
}

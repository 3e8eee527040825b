package app

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestConnectEtcdEmbeddedInProcess checks the single-machine wiring: with no --etcd-servers
// the server talks to its embedded member in process (a client with no endpoints to dial),
// what it writes is what a client on the member's loopback URL (etcdctl's way in) reads, and
// Close stops everything without reporting the in-process client's own cancellation.
func TestConnectEtcdEmbeddedInProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := connectEtcd(ctx, nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = conn.Close()
		}
	})
	if eps := conn.client.Endpoints(); len(eps) != 0 {
		t.Errorf("server's etcd client dials %v; want the in-process client (no endpoints)", eps)
	}
	urls := conn.embedded.Endpoints()
	if !strings.Contains(conn.describe, "client URL "+urls[0]) {
		t.Errorf("describe = %q; want it to name the member's client URL %s", conn.describe, urls[0])
	}

	put, err := conn.client.Put(ctx, "/registry/probe", "in-process")
	if err != nil {
		t.Fatalf("in-process put: %v", err)
	}
	remote, err := clientv3.New(clientv3.Config{Endpoints: urls, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	got, err := remote.Get(ctx, "/registry/probe")
	if err != nil {
		t.Fatalf("get over the member's client URL: %v", err)
	}
	if len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "in-process" || got.Kvs[0].ModRevision != put.Header.Revision {
		t.Fatalf("read over gRPC %v; want value %q at revision %d", got.Kvs, "in-process", put.Header.Revision)
	}

	closed = true
	if err := conn.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := conn.client.Get(ctx, "/registry/probe"); err == nil {
		t.Error("in-process client still answers after Close")
	}
}

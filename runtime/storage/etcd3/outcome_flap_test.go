package etcd3_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// flakyProxy forwards TCP connections to an etcd while up; down closes every connection and
// refuses new ones.
type flakyProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  []net.Conn
}

func newFlakyProxy(t *testing.T, target string) *flakyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln, target: target}
	t.Cleanup(func() { _ = ln.Close(); p.setUp(false) })
	go p.serve()
	return p
}

func (p *flakyProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if !p.up {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		e, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns = append(p.conns, c, e)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(e, c) }()
		go func() { _, _ = io.Copy(c, e) }()
	}
}

// setUp brings the proxy up, or down: then every connection is closed.
func (p *flakyProxy) setUp(up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = up
	if !up {
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.conns = nil
	}
}

// waitForState waits until conn is in state, failing the test after 20s.
func waitForState(t *testing.T, conn *grpc.ClientConn, state connectivity.State) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for conn.Connect(); conn.GetState() != state; {
		if !conn.WaitForStateChange(ctx, conn.GetState()) {
			t.Errorf("the client's connection is %s after 20s; want %s", conn.GetState(), state)
			return
		}
	}
}

// TestWriteSentOnAReconnectionThatDrops: a create that waits for etcd while the client's
// connection is down, is sent once the connection comes up, is applied, and loses its answer
// as the connection drops again is not reported as Unreachable (not applied: a client may
// retry it, and a retried create with generateName would make a duplicate) but as a Timeout
// saying it may have been applied. The connection reads as down before and after the call:
// only whether the request was queued on a connection tells the two apart.
func TestWriteSentOnAReconnectionThatDrops(t *testing.T) {
	t.Parallel()
	plain, srv := etcdtest.Run(t)
	proxy := newFlakyProxy(t, strings.TrimPrefix(srv.Endpoints()[0], "http://"))
	c := trackedClient(t, "http://"+proxy.ln.Addr().String())
	conn := c.ActiveConnection()
	waitForState(t, conn, connectivity.TransientFailure)
	// The answer is lost as the connection that carried the write drops: the call ends with
	// gRPC's Unavailable once the connection reads as down again.
	lossy := &lostReplies{KV: c.KV, lost: func(commit func() (*clientv3.TxnResponse, error)) error {
		proxy.setUp(true)
		if _, err := commit(); err != nil {
			return err
		}
		proxy.setUp(false)
		waitForState(t, conn, connectivity.TransientFailure)
		return status.Error(codes.Unavailable, "error reading from server: EOF")
	}}
	lossy.lose.Store(1)
	c.KV = lossy
	s := etcd3.New(c, widgetCodec(), testapi.NewWidget, "/registry/test.apigen.dev/widgets", testapi.Resource)
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := s.Create(ctx, "/ns/a", w, &testapi.Widget{})
	if n := keys(t, plain); n != 1 {
		t.Fatalf("%d objects stored; want the create applied", n)
	}
	var se *storage.StatusError
	if !errors.As(err, &se) || se.Code != storage.ErrCodeTimeout || !se.Unknown {
		t.Errorf("create applied, answer lost with the connection: %v; want a Timeout saying the write may have been applied", err)
	}
}

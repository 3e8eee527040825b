package etcd3_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// lostReplies is a clientv3.KV on a real etcd whose next transactions lose their answer: the
// first `lose` commits are applied (or, with drop, not sent) and then report
// context.DeadlineExceeded, as a write whose request deadline passes while etcd applies it;
// or, with lost set, report what lost returns, given the commit to make.
type lostReplies struct {
	clientv3.KV
	lose atomic.Int32
	drop bool
	lost func(commit func() (*clientv3.TxnResponse, error)) error
}

func (l *lostReplies) Txn(ctx context.Context) clientv3.Txn {
	return &lostTxn{Txn: l.KV.Txn(ctx), l: l}
}

type lostTxn struct {
	clientv3.Txn
	l *lostReplies
}

func (t *lostTxn) If(cs ...clientv3.Cmp) clientv3.Txn   { t.Txn = t.Txn.If(cs...); return t }
func (t *lostTxn) Then(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Then(ops...); return t }
func (t *lostTxn) Else(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Else(ops...); return t }

func (t *lostTxn) Commit() (*clientv3.TxnResponse, error) {
	if t.l.lose.Add(-1) < 0 {
		return t.Txn.Commit()
	}
	if t.l.lost != nil {
		return nil, t.l.lost(t.Txn.Commit)
	}
	if !t.l.drop {
		if _, err := t.Txn.Commit(); err != nil {
			return nil, err
		}
	}
	return nil, context.DeadlineExceeded
}

// lossyStore returns a store on a real etcd whose transactions can lose their answers, and a
// plain client of the same etcd.
func lossyStore(t *testing.T) (storage.Interface, *lostReplies, *clientv3.Client) {
	t.Helper()
	plain, srv := etcdtest.Run(t)
	c := trackedClient(t, srv.Endpoints()...)
	if _, err := c.Get(context.Background(), "warm-up"); err != nil { // connected, as a server's client is
		t.Fatal(err)
	}
	lossy := &lostReplies{KV: c.KV}
	c.KV = lossy
	return etcd3.New(c, widgetCodec(), testapi.NewWidget, "/registry/test.apigen.dev/widgets", testapi.Resource), lossy, plain
}

// keys counts the widgets stored.
func keys(t *testing.T, c *clientv3.Client) int64 {
	t.Helper()
	resp, err := c.Get(context.Background(), "/registry/test.apigen.dev/widgets/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Count
}

// TestWriteWithLostAnswer: a create, update or delete whose transaction etcd applied (or
// never got) but whose answer was lost is made known by sending it again - its compare lets
// at most one attempt apply - so the caller gets the write's real result: one object, one
// increment, one delete. When etcd answers neither attempt, the error says the write may
// have been applied.
func TestWriteWithLostAnswer(t *testing.T) {
	for _, drop := range []bool{false, true} {
		s, lossy, plain := lossyStore(t)
		lossy.drop = drop
		ctx := context.Background()
		w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-1"}}
		lossy.lose.Store(1)
		created := &testapi.Widget{}
		if err := s.Create(ctx, "/ns/a", w, created); err != nil || created.ResourceVersion == "" {
			t.Fatalf("drop=%v: create whose answer was lost: %v, %+v; want it acknowledged", drop, err, created)
		}
		if n := keys(t, plain); n != 1 {
			t.Errorf("drop=%v: %d objects after one create", drop, n)
		}
		lossy.lose.Store(1)
		updated := &testapi.Widget{}
		if err := s.GuaranteedUpdate(ctx, "/ns/a", updated, false, nil, func(in k8sruntime.Object) (k8sruntime.Object, error) {
			in.(*testapi.Widget).Spec.Size++
			return in, nil
		}); err != nil || updated.Spec.Size != 1 {
			t.Fatalf("drop=%v: update whose answer was lost: %v, size %d; want size 1 (applied once)", drop, err, updated.Spec.Size)
		}
		got := &testapi.Widget{}
		if err := s.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil || got.Spec.Size != 1 || got.ResourceVersion != updated.ResourceVersion {
			t.Errorf("drop=%v: stored %+v (%v); want size 1 at %s", drop, got, err, updated.ResourceVersion)
		}
		lossy.lose.Store(1)
		if err := s.Delete(ctx, "/ns/a", &testapi.Widget{}, nil, nil); err != nil {
			t.Errorf("drop=%v: delete whose answer was lost: %v", drop, err)
		}
		if n := keys(t, plain); n != 0 {
			t.Errorf("drop=%v: %d objects after the delete", drop, n)
		}
		lossy.lose.Store(2) // neither attempt is answered
		err := s.Create(ctx, "/ns/b", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}}, &testapi.Widget{})
		var se *storage.StatusError
		if !storage.IsTimeout(err) || !asStatus(err, &se) || !se.Unknown {
			t.Errorf("drop=%v: create etcd never answered: %v; want a Timeout saying the write may have been applied", drop, err)
		}
	}
}

// TestWriteAfterDeadlineIsNotSent: a write whose context has already ended is not sent: a
// Timeout that says nothing was written.
func TestWriteAfterDeadlineIsNotSent(t *testing.T) {
	s, _, plain := lossyStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	err := s.Create(ctx, "/ns/a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}, &testapi.Widget{})
	var se *storage.StatusError
	if !storage.IsTimeout(err) || !asStatus(err, &se) || se.Unknown {
		t.Errorf("create after its deadline: %v; want a Timeout saying nothing was written", err)
	}
	if n := keys(t, plain); n != 0 {
		t.Errorf("%d objects stored by a create sent after its deadline", n)
	}
}

func asStatus(err error, se **storage.StatusError) bool {
	s, ok := err.(*storage.StatusError)
	*se = s
	return ok
}

// trackedClient returns a client of endpoints dialed with etcd3.TrackSends, as a server's
// client of --etcd-servers is, closed in cleanup.
func trackedClient(t *testing.T, endpoints ...string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{etcd3.TrackSends()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

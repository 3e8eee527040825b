package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// The HA test's timings: a request may take haRequestTimeout (--request-timeout) and a
// little more to be answered; a dead holder's Lease is taken over within haLeaseDuration.
const (
	haRequestTimeout = 10 * time.Second
	haLeaseDuration  = 4 * time.Second
	haWriters        = 8
)

// TestReplicasSurviveFailures runs three replicas on a three-member etcd cluster (embedded
// members in the test's process) and kills one replica (SIGKILL) and one etcd member while 8
// clients write through the replicas, each retrying a failed create on the next replica:
// every acknowledged write is stored afterwards, none lost by a retry, no request outlives
// --request-timeout, watches on the surviving replicas see writes made through the others,
// the dead replica's Leases are taken over within the lease duration, and a namespace
// deleted afterwards is finalized by exactly one replica.
func TestReplicasSurviveFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	members, endpoints := etcdtest.RunCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	procs := startReplicas(ctx, t, 3, "--etcd-servers="+strings.Join(endpoints, ","),
		"--request-timeout="+haRequestTimeout.String(), "--leader-elect-lease-duration="+haLeaseDuration.String(),
		"--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms")
	kube := make([]*kubernetes.Clientset, 3)
	dbs := make([]dynamic.ResourceInterface, 3)
	for i, p := range procs {
		cfg := rest.CopyConfig(p.Config)
		cfg.QPS, cfg.Timeout = -1, haRequestTimeout+5*time.Second
		kube[i] = kubernetes.NewForConfigOrDie(cfg)
		dbs[i] = dynamic.NewForConfigOrDie(cfg).Resource(databasesV1).Namespace("default")
	}

	// Which replica holds the namespace controller's Lease: it is the one killed.
	holder := func(via *kubernetes.Clientset) string {
		l, err := via.CoordinationV1().Leases("kube-system").Get(ctx, "namespace-controller", metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	var before string
	within(t, 30*time.Second, "a holder of the namespace controller's Lease", func() bool { before = holder(kube[0]); return before != "" })
	victim := -1
	for i, p := range procs {
		if strings.Contains(p.Output(), before) {
			victim = i
		}
	}
	if victim < 0 {
		// The identity is logged by the campaign that acquired the Lease.
		t.Fatalf("no replica logged the identity %s", before)
	}
	survivors := []int{}
	for i := range procs {
		if i != victim {
			survivors = append(survivors, i)
		}
	}

	// Watches on the survivors, from now.
	start, err := dbs[survivors[0]].List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	watches := make([]*watchReader, len(survivors))
	for i, s := range survivors {
		// Read as an informer reads, while the writes go on, resuming from the last
		// resourceVersion seen when the server ends the watch (a watcher that falls behind
		// is cut off, and a watch cache that restarts its etcd watch ends its watchers).
		if watches[i], err = readAdded(ctx, dbs[s], start.GetResourceVersion()); err != nil {
			t.Fatal(err)
		}
		defer watches[i].stop()
	}

	// 8 writers, each creating its own objects round robin over the replicas, retrying a
	// failed create on the next replica until it is acknowledged (AlreadyExists then means an
	// earlier attempt was committed).
	var acked sync.Map
	var slowest atomic.Int64
	writeCtx, stopWriting := context.WithCancel(ctx)
	var writers sync.WaitGroup
	for w := range haWriters {
		writers.Go(func() {
			next := w
			for n := 0; writeCtx.Err() == nil; n++ {
				name := fmt.Sprintf("ha-%d-%03d", w, n)
				for writeCtx.Err() == nil {
					r := next % len(procs)
					next++
					begin := time.Now()
					_, err := dbs[r].Create(writeCtx, newDatabase("db.example.com/v1", name, map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
					if d := time.Since(begin); int64(d) > slowest.Load() {
						slowest.Store(int64(d))
					}
					if err == nil || apierrors.IsAlreadyExists(err) {
						acked.Store(name, true)
						break
					}
				}
			}
		})
	}
	time.Sleep(2 * time.Second)
	// The faults: SIGKILL the Lease holder, and stop an etcd member (not one the test reads
	// through last).
	if err := syscall.Kill(procs[victim].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	go func() { _ = members[2].Close() }() // Close waits for its peers; the cleanup's Close is then a no-op
	var after string
	// client-go's candidates take a Lease over once its renewTime is a lease duration old, and
	// try every retry period (500ms, with jitter): within the lease duration and a little
	// more after the holder died.
	within(t, haLeaseDuration+2*time.Second, "another replica to take the namespace controller's Lease over", func() bool {
		after = holder(kube[survivors[0]])
		return after != "" && after != before
	})
	t.Logf("the Lease moved from %s to %s %v after the kill", before, after, time.Since(killed).Round(100*time.Millisecond))
	time.Sleep(3 * time.Second)
	stopWriting()
	writers.Wait()

	// Every acknowledged create is stored, once.
	list, err := dbs[survivors[0]].List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, item := range list.Items {
		stored[item.GetName()] = true
	}
	count := 0
	acked.Range(func(k, _ any) bool {
		count++
		if !stored[k.(string)] {
			t.Errorf("acknowledged create %s is not stored", k)
		}
		return true
	})
	if count < 50 {
		t.Errorf("only %d creates acknowledged: the load did not run", count)
	}
	if d := time.Duration(slowest.Load()); d > haRequestTimeout+3*time.Second {
		t.Errorf("a request took %v, beyond --request-timeout %v", d, haRequestTimeout)
	}
	t.Logf("%d creates acknowledged and stored; the slowest request took %v", count, time.Duration(slowest.Load()).Round(time.Millisecond))

	// Each survivor's watch saw every create acknowledged, whichever replica served it.
	for i, w := range watches {
		seen, err := w.await(count, 20*time.Second)
		if seen < count {
			t.Errorf("the watch on replica %d saw %d of the %d creates (ended by: %v)", survivors[i], seen, count, err)
		}
	}

	// A namespace deleted through one survivor is finalized once, by the Lease holder.
	ns := "ha-finalized"
	if _, err := kube[survivors[0]].CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kube[survivors[1]].CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	within(t, 30*time.Second, "the namespace to be finalized", func() bool {
		_, err := kube[survivors[0]].CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	finalizations := func() int {
		n := 0
		for _, s := range survivors {
			n += strings.Count(procs[s].Output(), `msg="namespace controller: namespace emptied and finalized" namespace=`+ns)
		}
		return n
	}
	// The controller logs once its finalize call has returned, after the namespace is gone;
	// a second finalization would be logged as soon.
	within(t, 10*time.Second, "the finalizing replica's log line", func() bool { return finalizations() > 0 })
	time.Sleep(time.Second)
	if finalized := finalizations(); finalized != 1 {
		t.Errorf("the namespace was finalized %d times by the survivors, want once", finalized)
	}
}

// watchReader reads a resource's watch in the background, as an informer does, through
// client-go's RetryWatcher (which resumes from the last resourceVersion seen whenever the
// server ends the watch), and counts the distinct names of the ADDED events.
type watchReader struct {
	w     *watchtools.RetryWatcher
	mu    sync.Mutex
	added map[string]bool
	err   error // the watch's ERROR event (a 410 Gone: a gap), which ends it
}

// readAdded starts reading res's watch from resourceVersion rv until ctx ends, stop is
// called or the watch reports an error.
func readAdded(ctx context.Context, res dynamic.ResourceInterface, rv string) (*watchReader, error) {
	w, err := watchtools.NewRetryWatcherWithContext(ctx, rv, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return res.Watch(ctx, opts)
		},
	})
	if err != nil {
		return nil, err
	}
	r := &watchReader{w: w, added: map[string]bool{}}
	go func() {
		for ev := range w.ResultChan() {
			r.mu.Lock()
			switch obj, ok := ev.Object.(interface{ GetName() string }); {
			case ev.Type == watch.Error:
				r.err = apierrors.FromObject(ev.Object)
			case ok && ev.Type == watch.Added:
				r.added[obj.GetName()] = true
			}
			r.mu.Unlock()
		}
	}()
	return r, nil
}

// stop ends the watch.
func (r *watchReader) stop() { r.w.Stop() }

// await waits until the watch has seen n distinct ADDED names, reported an error, or within
// has passed, and returns how many it saw and the error (nil: it goes on).
func (r *watchReader) await(n int, within time.Duration) (seen int, err error) {
	deadline := time.Now().Add(within)
	for {
		r.mu.Lock()
		seen, err = len(r.added), r.err
		r.mu.Unlock()
		if seen >= n || err != nil || time.Now().After(deadline) {
			return seen, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

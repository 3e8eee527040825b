package garbagecollector

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// benchDependents is the number of dependents BenchmarkCollectDependents collects: 10,000 in
// make bench (the target is under 30 s on a 2-core machine); smaller for a quick look.
var benchDependents = flag.Int("gc.dependents", 10000, "dependents of one owner BenchmarkCollectDependents collects")

// benchParallelism is the number of clients creating the dependents, and deleting them in the
// baseline: the collector's own DefaultWorkers.
const benchParallelism = DefaultWorkers

// BenchmarkCollectDependents measures how long the garbage collector takes to delete the
// -gc.dependents dependents of one owner after the owner's background deletion (from the
// delete until the last one is gone from etcd), against a baseline measured in the same run:
// deleting as many objects straight through the Store with as many clients as the collector
// has workers. Reported: s/collect, s/direct-delete and their ratio.
func BenchmarkCollectDependents(b *testing.B) {
	client, stores, info := newTestGroup(b)
	gc := New(Config{Sources: []Source{SourceFunc(func() []Resource { return APIGroupResources(info) })}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for !gc.IsSynced() {
		time.Sleep(10 * time.Millisecond)
	}
	n := *benchDependents
	var collect, direct time.Duration
	for i := 0; b.Loop(); i++ {
		owner := createWidget(b, stores.Widgets, "gc", fmt.Sprintf("owner-%d", i), nil)
		ref := []metav1.OwnerReference{{APIVersion: "test.apigen.dev/v1", Kind: "Widget", Name: owner.Name, UID: owner.UID}}
		createDependents(b, stores.Widgets, "gc", fmt.Sprintf("d%d-", i), n, ref)
		start := time.Now()
		if _, _, err := stores.Widgets.Delete(ns("gc"), owner.Name, &metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		waitForCount(b, client, "/registry/test.apigen.dev/widgets/gc/", 0)
		collect += time.Since(start)

		createDependents(b, stores.Widgets, "direct", fmt.Sprintf("d%d-", i), n, nil)
		start = time.Now()
		parallel(b, n, func(j int) error {
			_, _, err := stores.Widgets.Delete(ns("direct"), fmt.Sprintf("d%d-%d", i, j), &metav1.DeleteOptions{})
			return err
		})
		direct += time.Since(start)
	}
	iterations := float64(b.N)
	b.ReportMetric(collect.Seconds()/iterations, "s/collect")
	b.ReportMetric(direct.Seconds()/iterations, "s/direct-delete")
	b.ReportMetric(collect.Seconds()/direct.Seconds(), "collect/direct")
	b.Logf("collected %d dependents of one owner in %.2fs; deleting them directly with %d clients took %.2fs (ratio %.2f)",
		n, collect.Seconds()/iterations, benchParallelism, direct.Seconds()/iterations, collect.Seconds()/direct.Seconds())
}

// createWidget creates a Widget in namespace with owners.
func createWidget(b *testing.B, s *registry.Store, namespace, name string, owners []metav1.OwnerReference) *testapi.Widget {
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners}, Spec: testapi.WidgetSpec{Size: 1, Color: "red"}}
	out, err := s.Create(ns(namespace), w, &metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return out.(*testapi.Widget)
}

// createDependents creates n Widgets <prefix><j> in namespace with owners, outside the timer.
func createDependents(b *testing.B, s *registry.Store, namespace, prefix string, n int, owners []metav1.OwnerReference) {
	b.StopTimer()
	defer b.StartTimer()
	parallel(b, n, func(j int) error {
		w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s%d", prefix, j), OwnerReferences: owners},
			Spec: testapi.WidgetSpec{Size: 1, Color: "red"}}
		_, err := s.Create(ns(namespace), w, &metav1.CreateOptions{})
		return err
	})
}

// parallel runs f(0..n-1) on benchParallelism goroutines, failing on the first error.
func parallel(b *testing.B, n int, f func(int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, benchParallelism)
	for range benchParallelism {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < n; j = int(next.Add(1) - 1) {
				if err := f(j); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// waitForCount polls a count-only etcd range over prefix until it holds want keys, failing
// after five minutes.
func waitForCount(b *testing.B, client *clientv3.Client, prefix string, want int64) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		resp, err := client.Get(context.Background(), prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			b.Fatal(err)
		}
		if resp.Count == want {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d keys under %s after five minutes, want %d", resp.Count, prefix, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

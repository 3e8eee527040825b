package cacher_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// BenchmarkGetList lists 1,000 widgets in two pages of 500 for a read-only caller (as the
// list handler), consistently (resourceVersion ""), from etcd3 and then from the cache over
// it; the cache's sub-benchmark reports its speed as a ratio to etcd3's (x-etcd3: etcd3's
// ns/op over the cache's; the cache's time includes each page's linearizable revision read).
func BenchmarkGetList(b *testing.B) {
	client, _ := etcdtest.Run(b)
	prefix := newPrefix()
	raw := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	ctx := context.Background()
	for i := range 1000 {
		w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%04d", i), Namespace: "ns",
			Labels: map[string]string{"app": "bench"}}, Spec: testapi.WidgetSpec{Color: "red", Size: int32(i)}}
		if err := raw.Create(ctx, fmt.Sprintf("/ns/w%04d", i), w, &testapi.Widget{}); err != nil {
			b.Fatal(err)
		}
	}
	c := syncedCacher(b, raw)
	var etcdNsPerOp float64
	for _, side := range []struct {
		name string
		s    storage.Interface
	}{{"etcd3", raw}, {"cache", c}} {
		s := side.s
		b.Run(side.name, func(b *testing.B) {
			readOnly := request.WithReadOnlyResults(ctx)
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				opts := storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 500}}
				for page := 0; ; page++ {
					l := &testapi.WidgetList{}
					if err := s.GetList(readOnly, "/ns/", opts, l); err != nil {
						b.Fatal(err)
					}
					if l.Continue == "" {
						break
					}
					opts.Predicate.Continue = l.Continue
				}
			}
			nsPerOp := float64(time.Since(start).Nanoseconds()) / float64(b.N)
			if side.name == "etcd3" {
				etcdNsPerOp = nsPerOp
			} else if etcdNsPerOp > 0 {
				b.ReportMetric(etcdNsPerOp/nsPerOp, "x-etcd3")
			}
		})
	}
}

// BenchmarkWatchFanout updates one widget per op and waits until each of 1,000 watchers of
// its namespace (consumers that never write to the objects, as the watch handler:
// request.WithReadOnlyResults and WithSharedWatchObjects) has received the event; it
// reports per delivered event the time (ns/event), the process's CPU time (cpu-ns/event)
// and heap allocations (allocs/event, B/event), the etcd write included once per op.
func BenchmarkWatchFanout(b *testing.B) {
	const watchers = 1000
	client, _ := etcdtest.Run(b)
	prefix := newPrefix()
	raw := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	ctx := context.Background()
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "fan", Namespace: "ns"}}
	if err := raw.Create(ctx, "/ns/fan", w, &testapi.Widget{}); err != nil {
		b.Fatal(err)
	}
	c := syncedCacher(b, raw)
	opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(c.Revision(), 10)}
	readOnly := request.WithSharedWatchObjects(request.WithReadOnlyResults(ctx))
	var delivered sync.WaitGroup
	for range watchers {
		wi, err := c.Watch(readOnly, "/ns/", opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(wi.Stop)
		go func() {
			for range wi.ResultChan() {
				delivered.Done()
			}
		}()
	}
	b.ReportAllocs()
	size := int32(0)
	var ms0, ms1 goruntime.MemStats
	goruntime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	start := time.Now()
	for b.Loop() {
		delivered.Add(watchers)
		size++
		err := c.GuaranteedUpdate(ctx, "/ns/fan", &testapi.Widget{}, false, nil, func(in runtime.Object) (runtime.Object, error) {
			w := in.(*testapi.Widget)
			w.Spec.Size = size
			return w, nil
		})
		if err != nil {
			b.Fatal(err)
		}
		delivered.Wait()
	}
	events := float64(b.N * watchers)
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/events, "ns/event")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/events, "cpu-ns/event")
	goruntime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/events, "allocs/event")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/events, "B/event")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// syncedCacher returns a Cacher of raw's widgets, synced, stopped when b ends.
func syncedCacher(b *testing.B, raw storage.Interface) *cacher.Cacher {
	b.Helper()
	c, err := cacher.New(cacher.Config{Storage: raw, Resource: testapi.Resource, NewFunc: testapi.NewWidget})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Stop)
	waitFor(b, "the cache to sync", c.Synced)
	return c
}

package endpoints_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// recordingFactory is cacher.StorageFactory remembering the caches it made, so the benchmark
// can wait until they serve watches.
type recordingFactory struct {
	*cacher.StorageFactory
	caches []*cacher.Cacher
}

func (f *recordingFactory) NewStorage(resource schema.GroupResource, version schema.GroupVersion, scheme *k8sruntime.Scheme,
	newFunc func() k8sruntime.Object) (storage.Interface, error) {
	st, err := f.StorageFactory.NewStorage(resource, version, scheme, newFunc)
	if c, ok := st.(*cacher.Cacher); ok {
		f.caches = append(f.caches, c)
	}
	return st, err
}

// BenchmarkWatchFanout measures the watch path as a server runs it: widgets cached by the
// watch cache over a real etcd, served over HTTPS and HTTP/2 (10 connections of at most 100
// streams, as many clients), with 0, 100 or 1,000 watchers of the namespace, each a client
// reading its stream (counting lines, no decoding). One op is a merge PATCH of one widget
// over HTTP and the wait until every watcher has read its event. It reports the PATCH's
// mean latency (write-ms: the writer's latency beside the fan-out), and per event and
// watcher the process's CPU time (cpu-us/event, server and clients together) and heap
// allocations (allocs/event, B/event; the clients' reads and the PATCH included): `go test -run '^$' -bench WatchFanout ./runtime/endpoints`.
func BenchmarkWatchFanout(b *testing.B) {
	client, _ := etcdtest.Run(b)
	scheme, err := install.NewScheme()
	if err != nil {
		b.Fatal(err)
	}
	factory := &recordingFactory{StorageFactory: &cacher.StorageFactory{Base: &etcd3.StorageFactory{Client: client, Prefix: "/registry"}}}
	b.Cleanup(factory.Stop)
	stores, err := install.NewStores(scheme, factory)
	if err != nil {
		b.Fatal(err)
	}
	container := restful.NewContainer()
	container.Router(endpoints.NewRouter())
	container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	if _, err := endpoints.InstallAPIGroup(container, install.NewAPIGroupInfo(scheme, stores)); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(container)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	b.Cleanup(srv.Close)
	for _, c := range factory.caches {
		for deadline := time.Now().Add(30 * time.Second); !c.Synced(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatal("the watch cache did not sync in 30s")
			}
		}
	}
	const path = "/apis/test.apigen.dev/v1/namespaces/ns/widgets"
	writer := srv.Client()
	do := func(method, url, contentType, body string) {
		req, _ := http.NewRequest(method, srv.URL+url, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		resp, err := writer.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			b.Fatalf("%s %s: %s", method, url, resp.Status)
		}
	}
	do(http.MethodPost, path, "application/json", widgetJSON("fan", 0, "red"))

	for _, watchers := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			var delivered sync.WaitGroup
			var opened sync.WaitGroup
			var conns []*http.Client
			for range 10 {
				tr := srv.Client().Transport.(*http.Transport).Clone()
				conns = append(conns, &http.Client{Transport: tr})
			}
			var bodies []io.Closer
			var mu sync.Mutex
			for i := range watchers {
				opened.Add(1)
				go func() {
					resp, err := conns[i%len(conns)].Get(srv.URL + path + "?watch=true&resourceVersion=0")
					if err != nil {
						panic(err)
					}
					mu.Lock()
					bodies = append(bodies, resp.Body)
					mu.Unlock()
					r := bufio.NewReader(resp.Body)
					if _, err := r.ReadSlice('\n'); err != nil { // the initial ADDED
						panic(err)
					}
					opened.Done()
					for {
						if _, err := r.ReadSlice('\n'); err != nil {
							return
						}
						delivered.Done()
					}
				}()
			}
			opened.Wait()
			defer func() {
				for _, body := range bodies {
					body.Close()
				}
				for _, c := range conns {
					c.CloseIdleConnections()
				}
			}()
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuTime()
			var writeTime time.Duration
			size := 0
			for b.Loop() {
				size++
				delivered.Add(watchers)
				start := time.Now()
				do(http.MethodPatch, path+"/fan", "application/merge-patch+json", fmt.Sprintf(`{"metadata":{"annotations":{"n":"%d"}}}`, size))
				writeTime += time.Since(start)
				delivered.Wait()
			}
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(writeTime.Microseconds())/1000/float64(b.N), "write-ms")
			if watchers > 0 {
				events := float64(b.N * watchers)
				b.ReportMetric(float64(cpu.Microseconds())/events, "cpu-us/event")
				b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/events, "allocs/event")
				b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/events, "B/event")
			}
		})
	}
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

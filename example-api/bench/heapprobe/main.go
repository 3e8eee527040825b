// Command heapprobe measures example-apiserver's live heap per stored object, the figure
// the aged-server target of the benchmark bounds (at most 2 KB): it starts the
// server (a child process on plain HTTP with --profiling, its embedded etcd and watch cache
// as by default), reads the heap in use after a forced collection (HeapAlloc of
// /debug/pprof/heap?gc=1), creates -n Databases of about -size bytes of JSON (loadgen's
// objects) with -clients clients, waits -settle, reads it again, and prints the difference
// per object. The default -settle (15s) gives the watch cache's cooler the two or three
// passes (5 s apart) that make the unread objects cold, so the figure is the server's at rest. -heap writes the server's heap profile at the end, for
// `go tool pprof -sample_index=inuse_space -top`.
//
// -data-dir keeps the server's data directory: a second run on it with -n 0 measures a server
// restarting on the objects the first stored, its peak RSS covering the watch caches' first
// lists.
//
//	go build -o /tmp/example-apiserver ./example-api/cmd/example-apiserver
//	go run ./example-api/bench/heapprobe -bin /tmp/example-apiserver -n 100000 -heap heap.pb.gz
//	go run ./example-api/bench/heapprobe -bin /tmp/example-apiserver -n 100000 -data-dir /tmp/aged
//	go run ./example-api/bench/heapprobe -bin /tmp/example-apiserver -n 0 -data-dir /tmp/aged
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "heapprobe:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("bin", "", "example-apiserver binary to run (required)")
	n := flag.Int("n", 100000, "objects to create")
	size := flag.Int("size", 1024, "approximate size of an object's JSON in bytes")
	clients := flag.Int("clients", 16, "concurrent creating clients")
	heap := flag.String("heap", "", "write the server's heap profile at the end to this file")
	extra := flag.String("server-args", "", "more server flags, space-separated")
	settle := flag.Duration("settle", bench.StoredSettle, "wait after start and after the creates before reading the heap (the watch cache makes objects not read for 5-10s cold)")
	dataDir := flag.String("data-dir", "", "the server's data directory, kept afterwards (default: a temporary one, removed)")
	flag.Parse()
	if *bin == "" {
		return errors.New("-bin is required")
	}
	tmpl, err := bench.NewObjectTemplate(*size)
	if err != nil {
		return err
	}
	ctx := context.Background()
	dir := *dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "heapprobe"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	// As loadgen does: the file-backed RSS printed counts the pages the server reads, not
	// the whole image a fresh build left in the page cache.
	if err := bench.DropPageCache(*bin); err != nil {
		return err
	}
	p, err := serverproc.Start(ctx, *bin, dir, append([]string{"--plain-http", "--profiling", "--log-level", "warn"}, strings.Fields(*extra)...)...)
	if err != nil {
		return err
	}
	defer p.Stop(20 * time.Second)
	time.Sleep(*settle)
	if *n == 0 { // a restart on -data-dir: what the start left
		fmt.Printf("after %v: ", *settle)
		return printResident(p.URL, p.PID)
	}
	before, err := heapAlloc(p.URL, "")
	if err != nil {
		return err
	}
	if err := bench.NewAPIClient(p.URL, tmpl, nil).CreateNamespace(ctx, "probe"); err != nil {
		return err
	}
	start := time.Now()
	if err := createAll(ctx, p.URL, tmpl, *n, *clients); err != nil {
		return err
	}
	took := time.Since(start)
	time.Sleep(*settle)
	if err := printResident(p.URL, p.PID); err != nil {
		return err
	}
	after, err := heapAlloc(p.URL, *heap)
	if err != nil {
		return err
	}
	fmt.Printf("created %d objects of %d bytes in %v (%.0f/s); HeapAlloc after GC %d -> %d bytes: %.0f bytes per object\n",
		*n, *size, took.Round(time.Millisecond), float64(*n)/took.Seconds(), before, after, float64(after-before)/float64(*n))
	// A collection moves no object: the heap's spans in use after it are the live heap and
	// the free slots of the spans it leaves in use (fragmentation), whenever the server's own
	// last collection ran.
	stats, err := runtimeStats(p.URL, false)
	if err != nil {
		return err
	}
	fmt.Printf("after GC: HeapAlloc %.1f MB, HeapInuse %.1f MB (%.1f MB of free slots in spans in use)\n",
		float64(stats["HeapAlloc"])/1e6, float64(stats["HeapInuse"])/1e6, float64(stats["HeapInuse"]-stats["HeapAlloc"])/1e6)
	return nil
}

// printResident prints the server's resident memory after the settle, before heapAlloc's
// forced collection, and the Go runtime's split of it (the "# Name = bytes" lines of its heap
// profile), so that memory the live heap does not explain (garbage not yet collected, pages
// not yet returned, stacks) shows.
func printResident(url string, pid int) error {
	m, err := bench.ReadMemStatus(pid)
	if err != nil {
		return err
	}
	stats, err := runtimeStats(url, false)
	if err != nil {
		return err
	}
	mb := func(v int64) string { return fmt.Sprintf("%.1f MB", float64(v)/1e6) }
	fmt.Printf("server RSS %s (anonymous %s, file-backed %s; peak %s); HeapAlloc %s, HeapInuse %s, HeapIdle %s, HeapReleased %s, Stack %s, NextGC %s\n",
		mb(int64(m.RSS)), mb(int64(m.Anon)), mb(int64(m.File)), mb(int64(m.HWM)), mb(stats["HeapAlloc"]), mb(stats["HeapInuse"]),
		mb(stats["HeapIdle"]), mb(stats["HeapReleased"]), mb(stats["Stack"]), mb(stats["NextGC"]))
	return nil
}

// createAll creates n Databases in namespace probe with clients clients.
func createAll(ctx context.Context, url string, tmpl *bench.ObjectTemplate, n, clients int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			c := bench.NewAPIClient(url, tmpl, nil)
			defer c.Close()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if _, err := c.Create(ctx, "probe", fmt.Sprintf("probe-object-%07d", i), 0); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// heapAlloc forces a collection in the server and returns its HeapAlloc in bytes; with file
// it writes the server's heap profile there too.
func heapAlloc(url, file string) (int64, error) {
	stats, err := runtimeStats(url, true)
	if err != nil {
		return 0, err
	}
	v := stats["HeapAlloc"]
	if file == "" {
		return v, nil
	}
	r, err := http.Get(url + "/debug/pprof/heap")
	if err != nil {
		return 0, err
	}
	defer r.Body.Close()
	f, err := os.Create(file)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(f, r.Body); err != nil {
		f.Close()
		return 0, err
	}
	return v, f.Close()
}

// runtimeStats returns the "# Name = value" lines of the server's heap profile (its
// runtime.MemStats: HeapAlloc, HeapInuse, Stack, NextGC, ... in bytes), after a forced
// collection when gc is set. It fails when HeapAlloc is missing.
func runtimeStats(url string, gc bool) (map[string]int64, error) {
	q := "debug=1"
	if gc {
		q = "gc=1&debug=1"
	}
	resp, err := http.Get(url + "/debug/pprof/heap?" + q)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	stats := map[string]int64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		// "# HeapAlloc = 123", "# Stack = 1638400 / 1638400" (in use / from the OS).
		name, value, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "# "), " = ")
		value, _, _ = strings.Cut(value, " ")
		if v, err := strconv.ParseInt(value, 10, 64); ok && err == nil && strings.HasPrefix(sc.Text(), "# ") {
			stats[name] = v
		}
	}
	if _, ok := stats["HeapAlloc"]; sc.Err() != nil || !ok {
		return nil, fmt.Errorf("no HeapAlloc in the server's heap profile (%d): %v", resp.StatusCode, sc.Err())
	}
	return stats, nil
}

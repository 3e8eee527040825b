package bench

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// watchNamespace holds the object the watch fan-out updates.
const watchNamespace = "bench-watch"

// WatchConfig is one watch fan-out measurement: Watchers watches of a namespace, as
// separate clients sharing HTTP/2 connections (WatchersPerConnection to each, the way many
// informers of one client share its connection; one connection each over plain HTTP), and
// one writer updating an object there Rate times a second for Duration.
type WatchConfig struct {
	// ServerURL and TLS reach the server, as ScenarioConfig's.
	ServerURL string
	TLS       *tls.Config
	// Template renders the updated object, of the resource watched.
	Template *ObjectTemplate
	// Watchers may be 0: the writer alone, whose latencies are the baseline of a fan-out's
	// (WatchSummary.WriterP99).
	Watchers int
	Rate     float64 // writes per second
	Duration time.Duration
	// CPUTime, when not nil, reads the server's cumulative CPU time (ReadCPUTime).
	CPUTime func() (time.Duration, error)
}

// WatchSummary is the outcome of RunWatchFanout.
type WatchSummary struct {
	Watchers, Writes int
	Rate             float64 // writes per second
	// Delivered is how many events the watchers decoded, of Expected (Watchers x Writes);
	// Lost is Expected - Delivered: events no watcher of theirs received before its watch
	// ended or the wait did (a server that terminates a slow watcher loses its events).
	Delivered, Expected int
	// P50 and P99 are delivery latencies: from just before a write to a watcher having
	// decoded its event.
	P50, P99 time.Duration
	// CPU is the server's CPU time from the first write until every event was delivered (or
	// the wait ended); 0 when unknown.
	CPU time.Duration
	// Elapsed is that period.
	Elapsed time.Duration
	// Writing is the time from the first write's start to the last write's answer: a writer
	// whose updates take longer than 1/Rate writes at Writes/Writing instead of Rate, and its
	// watchers receive fewer events a second, so that fan-outs compare only at the same
	// achieved rate.
	Writing time.Duration
	// WriterP50 and WriterP99 are the latencies of the writer's updates.
	WriterP50, WriterP99 time.Duration
	// Connections is how many connections the watchers shared.
	Connections int
	// Terminated is how many watches the server ended before they saw every write (their
	// missing events are among the lost).
	Terminated int
	// PeakRSS is the server's highest sampled VmRSS during the fan-out, in bytes, when the
	// caller measured it (RunWatchFanout leaves it 0: unknown).
	PeakRSS uint64
}

// Lost is how many events were not delivered, to watchers the server terminated or within the
// wait after the last write: Expected - Delivered.
func (s WatchSummary) Lost() int { return s.Expected - s.Delivered }

// WriteRate is the writes a second the writer achieved, Writes/Writing (0 when unknown): at
// most Rate, less when its updates took longer than 1/Rate.
func (s WatchSummary) WriteRate() float64 {
	if s.Writing <= 0 {
		return 0
	}
	return float64(s.Writes) / s.Writing.Seconds()
}

// WatchersPerConnection is how many watches share one HTTP/2 connection of the fan-out: under
// every server's limit of concurrent streams (apigen's and kube-apiserver's default is 100,
// k8s.io/apiserver's RecommendedOptions' 1000), so that 10,000 watchers need 200 connections,
// not 10,000.
const WatchersPerConnection = 50

// CPUPerEvent is the server's CPU time per delivered event; 0 when unknown.
func (s WatchSummary) CPUPerEvent() time.Duration {
	if s.Delivered == 0 {
		return 0
	}
	return s.CPU / time.Duration(s.Delivered)
}

// watchEvent is the part of a watch event the watchers decode.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Annotations struct {
				Seq string `json:"seq"`
			} `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Parameters struct {
				Seq string `json:"seq"`
			} `json:"parameters"`
		} `json:"spec"`
	} `json:"object"`
}

// seq returns the event's "seq" entry: the spec's parameters' or the annotations' (see
// APIResource.InAnnotations).
func (e *watchEvent) seq() string {
	if s := e.Object.Spec.Parameters.Seq; s != "" {
		return s
	}
	return e.Object.Metadata.Annotations.Seq
}

// RunWatchFanout creates an object in namespace bench-watch, starts cfg.Watchers watches of
// the namespace from its resourceVersion (as separate clients, WatchersPerConnection to an
// HTTP/2 connection),
// then updates the object cfg.Rate times a second for cfg.Duration and waits until every
// watcher has decoded every update (at most 30s more). Each watcher decodes every event
// fully (encoding/json) and records, per update, the time from just before the write.
func RunWatchFanout(ctx context.Context, cfg WatchConfig) (WatchSummary, error) {
	writes := int(cfg.Rate * cfg.Duration.Seconds())
	if cfg.Watchers < 0 || writes < 1 {
		return WatchSummary{}, fmt.Errorf("cannot run watch fan-out: want watchers >= 0 and writes >= 1, got %d and %d", cfg.Watchers, writes)
	}
	api := NewAPIClient(cfg.ServerURL, cfg.Template, cfg.TLS)
	defer api.Close()
	if err := api.CreateNamespace(ctx, watchNamespace); err != nil {
		return WatchSummary{}, err
	}
	name := fmt.Sprintf("watched-%d", time.Now().UnixNano())
	rv, err := api.Create(ctx, watchNamespace, name, 0)
	if err != nil {
		return WatchSummary{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := &fanout{starts: make([]atomic.Int64, writes+1), latencies: make([][]time.Duration, cfg.Watchers)}
	res := cfg.Template.Resource()
	url := fmt.Sprintf("%s%s?watch=true&resourceVersion=%s&timeoutSeconds=3600", cfg.ServerURL, res.path(watchNamespace), rv)
	conns, err := f.startWatchers(ctx, url, cfg.TLS, writes)
	if err != nil {
		return WatchSummary{}, err
	}
	cpu0, cpuErr := readCPU(cfg.CPUTime)
	start := time.Now()
	writer, err := f.write(ctx, api, name, rv, cfg.Rate, writes)
	if err != nil {
		return WatchSummary{}, err
	}
	writing := time.Since(start)
	f.wait(30 * time.Second)
	sum := WatchSummary{Watchers: cfg.Watchers, Writes: writes, Rate: cfg.Rate, Expected: cfg.Watchers * writes, Elapsed: time.Since(start),
		Writing: writing, Connections: conns}
	ws := summarize(writer, 0, nil, sum.Elapsed)
	sum.WriterP50, sum.WriterP99 = ws.P50, ws.P99
	if cpu1, err := readCPU(cfg.CPUTime); err == nil && cpuErr == nil {
		sum.CPU = cpu1 - cpu0
	}
	cancel()
	f.wg.Wait()
	var all []time.Duration
	for _, l := range f.latencies {
		all = append(all, l...)
	}
	sum.Delivered = len(all)
	sum.Terminated = int(f.terminated.Load())
	s := summarize(all, 0, nil, sum.Elapsed)
	sum.P50, sum.P99 = s.P50, s.P99
	return sum, f.err()
}

// readCPU reads clock, or fails when it is nil.
func readCPU(clock func() (time.Duration, error)) (time.Duration, error) {
	if clock == nil {
		return 0, errors.New("no clock")
	}
	return clock()
}

// fanout is the state of one RunWatchFanout.
type fanout struct {
	starts    []atomic.Int64 // unix nanoseconds just before write seq
	latencies [][]time.Duration
	wg        sync.WaitGroup
	pending   sync.WaitGroup // watchers that have not seen every write
	// terminated counts the watches the server ended before they saw every write.
	terminated atomic.Int64
	mu         sync.Mutex
	firstErr   error
}

func (f *fanout) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.firstErr == nil {
		f.firstErr = err
	}
}

func (f *fanout) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.firstErr
}

// startWatchers opens len(f.latencies) watches of url, WatchersPerConnection to a
// connection over TLS (HTTP/2) and one each over plain HTTP, and returns the number of
// connections once every watch has its response headers; each then reads until it has seen
// writes updates or ctx ends. The connections close when ctx ends.
func (f *fanout) startWatchers(ctx context.Context, url string, tlsConfig *tls.Config, writes int) (int, error) {
	perConn := WatchersPerConnection
	if tlsConfig == nil {
		perConn = 1 // HTTP/1.1: one response at a time per connection
	}
	started := make(chan error, len(f.latencies))
	var client *http.Client
	conns := 0
	for i := range f.latencies {
		if i%perConn == 0 {
			client = &http.Client{Transport: newTransport(tlsConfig)}
			context.AfterFunc(ctx, client.CloseIdleConnections)
			conns++
		}
		f.wg.Add(1)
		f.pending.Add(1)
		go func(client *http.Client) {
			defer f.wg.Done()
			f.watch(ctx, i, client, url, writes, started)
		}(client)
	}
	for range f.latencies {
		if err := <-started; err != nil {
			return conns, err
		}
	}
	return conns, nil
}

// watch is watcher i.
func (f *fanout) watch(ctx context.Context, i int, client *http.Client, url string, writes int, started chan<- error) {
	seen := 0
	defer func() {
		if seen < writes {
			f.pending.Done()
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		started <- err
		return
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		started <- fmt.Errorf("cannot start watcher %d: %w", i, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		started <- fmt.Errorf("cannot start watcher %d: status %d", i, resp.StatusCode)
		return
	}
	started <- nil
	lines := bufio.NewReaderSize(resp.Body, 8<<10) // 10,000 watchers: 80 MiB of buffers
	for seen < writes {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			if ctx.Err() == nil {
				// The server ended the watch early, as kube's cacher terminates a watcher
				// that falls behind: its missing events count as lost.
				f.terminated.Add(1)
			}
			return
		}
		var ev watchEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			f.fail(fmt.Errorf("watcher %d: cannot decode an event: %w", i, err))
			return
		}
		now := time.Now()
		seq, err := strconv.Atoi(ev.seq())
		if ev.Type != "MODIFIED" || err != nil || seq < 1 || seq >= len(f.starts) {
			continue
		}
		f.latencies[i] = append(f.latencies[i], now.Sub(time.Unix(0, f.starts[seq].Load())))
		if seen++; seen == writes {
			f.pending.Done()
		}
	}
}

// write updates name writes times at rate a second and returns each update's latency.
func (f *fanout) write(ctx context.Context, api *APIClient, name, rv string, rate float64, writes int) ([]time.Duration, error) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	latencies := make([]time.Duration, 0, writes)
	for seq := 1; seq <= writes; seq++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		t0 := time.Now()
		f.starts[seq].Store(t0.UnixNano())
		var err error
		if rv, err = api.Update(ctx, watchNamespace, name, rv, seq); err != nil {
			return nil, err
		}
		latencies = append(latencies, time.Since(t0))
	}
	return latencies, nil
}

// wait waits until every watcher has seen every write, or timeout.
func (f *fanout) wait(timeout time.Duration) {
	done := make(chan struct{})
	go func() {
		f.pending.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

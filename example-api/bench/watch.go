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

// WatchConfig is one watch fan-out measurement: Watchers watches of a namespace, each on its
// own connection, and one writer updating an object there Rate times a second for Duration.
type WatchConfig struct {
	// ServerURL and TLS reach the server, as ScenarioConfig's.
	ServerURL string
	TLS       *tls.Config
	// Template renders the updated object.
	Template *ObjectTemplate
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
	// Delivered is how many events the watchers decoded, of Expected (Watchers x Writes).
	Delivered, Expected int
	// P50 and P99 are delivery latencies: from just before a write to a watcher having
	// decoded its event.
	P50, P99 time.Duration
	// CPU is the server's CPU time from the first write until every event was delivered (or
	// the wait ended); 0 when unknown.
	CPU time.Duration
	// Elapsed is that period.
	Elapsed time.Duration
}

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
		Spec struct {
			Parameters struct {
				Seq string `json:"seq"`
			} `json:"parameters"`
		} `json:"spec"`
	} `json:"object"`
}

// RunWatchFanout creates an object in namespace bench-watch, starts cfg.Watchers watches of
// the namespace from its resourceVersion (each on its own connection, as separate clients),
// then updates the object cfg.Rate times a second for cfg.Duration and waits until every
// watcher has decoded every update (at most 30s more). Each watcher decodes every event
// fully (encoding/json) and records, per update, the time from just before the write.
func RunWatchFanout(ctx context.Context, cfg WatchConfig) (WatchSummary, error) {
	writes := int(cfg.Rate * cfg.Duration.Seconds())
	if cfg.Watchers < 1 || writes < 1 {
		return WatchSummary{}, fmt.Errorf("cannot run watch fan-out: want watchers and writes >= 1, got %d and %d", cfg.Watchers, writes)
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
	url := fmt.Sprintf("%s/apis/%s/%s/namespaces/%s/%s?watch=true&resourceVersion=%s&timeoutSeconds=3600",
		cfg.ServerURL, Group, Version, watchNamespace, Resource, rv)
	if err := f.startWatchers(ctx, url, cfg.TLS, writes); err != nil {
		return WatchSummary{}, err
	}
	cpu0, cpuErr := readCPU(cfg.CPUTime)
	start := time.Now()
	if err := f.write(ctx, api, name, rv, cfg.Rate, writes); err != nil {
		return WatchSummary{}, err
	}
	f.wait(30 * time.Second)
	sum := WatchSummary{Watchers: cfg.Watchers, Writes: writes, Rate: cfg.Rate, Expected: cfg.Watchers * writes, Elapsed: time.Since(start)}
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
	mu        sync.Mutex
	firstErr  error
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

// startWatchers opens len(f.latencies) watches of url and returns once every one has its
// response headers; each then reads until it has seen writes updates or ctx ends.
func (f *fanout) startWatchers(ctx context.Context, url string, tlsConfig *tls.Config, writes int) error {
	started := make(chan error, len(f.latencies))
	for i := range f.latencies {
		f.wg.Add(1)
		f.pending.Add(1)
		go func() {
			defer f.wg.Done()
			f.watch(ctx, i, url, tlsConfig, writes, started)
		}()
	}
	for range f.latencies {
		if err := <-started; err != nil {
			return err
		}
	}
	return nil
}

// watch is watcher i.
func (f *fanout) watch(ctx context.Context, i int, url string, tlsConfig *tls.Config, writes int, started chan<- error) {
	seen := 0
	defer func() {
		if seen < writes {
			f.pending.Done()
		}
	}()
	client := &http.Client{Transport: newTransport(tlsConfig)}
	defer client.CloseIdleConnections()
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
	lines := bufio.NewReaderSize(resp.Body, 64<<10)
	for seen < writes {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			if ctx.Err() == nil {
				f.fail(fmt.Errorf("watcher %d ended after %d of %d events: %w", i, seen, writes, err))
			}
			return
		}
		var ev watchEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			f.fail(fmt.Errorf("watcher %d: cannot decode an event: %w", i, err))
			return
		}
		now := time.Now()
		seq, err := strconv.Atoi(ev.Object.Spec.Parameters.Seq)
		if ev.Type != "MODIFIED" || err != nil || seq < 1 || seq >= len(f.starts) {
			continue
		}
		f.latencies[i] = append(f.latencies[i], now.Sub(time.Unix(0, f.starts[seq].Load())))
		if seen++; seen == writes {
			f.pending.Done()
		}
	}
}

// write updates name writes times at rate a second.
func (f *fanout) write(ctx context.Context, api *APIClient, name, rv string, rate float64, writes int) error {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for seq := 1; seq <= writes; seq++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		f.starts[seq].Store(time.Now().UnixNano())
		var err error
		if rv, err = api.Update(ctx, watchNamespace, name, rv, seq); err != nil {
			return err
		}
	}
	return nil
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

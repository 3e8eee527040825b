package bench

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Op performs one operation; i counts the calling client's operations from 0 (warm-up
// included), so that an Op can derive unique names from it. An Op is called by one
// goroutine at a time.
type Op func(ctx context.Context, i int) error

// NewOp returns the Op of client number client (0 <= client < clients). It is called once
// per client before any Op runs, so it may prepare per-client state (a connection, a
// resourceVersion).
type NewOp func(client int) (Op, error)

// Config is the shape of one Run.
type Config struct {
	// Clients is the number of concurrent clients, each running its Op in a closed loop.
	Clients int
	// Warmup is run but not measured; Measure is the measured period that follows it.
	Warmup, Measure time.Duration
	// CPUTime, when not nil, reads a cumulative CPU time (e.g. ReadCPUTime of the server);
	// Run reads it when the measured period starts and after its last operation ends, and
	// reports the difference as Summary.CPU (0 if a read fails).
	CPUTime func() (time.Duration, error)
	// LoadCPUTime, when not nil, is read as CPUTime and reported as Summary.LoadCPU: the
	// CPU time of the side generating the load (ReadCPUTime of the load generator, whose
	// clients and embedded etcd run in it).
	LoadCPUTime func() (time.Duration, error)
}

// Run runs cfg.Clients clients concurrently, each calling its Op in a loop for cfg.Warmup
// and then for cfg.Measure, and summarizes the operations that started in the measured
// period. Operations still in flight when it ends are waited for and counted (a slow
// operation is never dropped), and Summary.Elapsed runs until the last of them finished. It returns an error when a
// NewOp fails or ctx ends before the measured period does; operation errors are counted in
// the Summary instead.
func Run(ctx context.Context, cfg Config, newOp NewOp) (Summary, error) {
	if cfg.Clients < 1 || cfg.Measure <= 0 || cfg.Warmup < 0 {
		return Summary{}, fmt.Errorf("cannot run benchmark: want clients >= 1, measure > 0, warmup >= 0, got %+v", cfg)
	}
	ops := make([]Op, cfg.Clients)
	for c := range ops {
		op, err := newOp(c)
		if err != nil {
			return Summary{}, fmt.Errorf("cannot prepare client %d: %w", c, err)
		}
		ops[c] = op
	}
	type clientResult struct {
		latencies []time.Duration
		errors    int
		firstErr  error
	}
	results := make([]clientResult, cfg.Clients)
	start := time.Now()
	measureStart := start.Add(cfg.Warmup)
	end := measureStart.Add(cfg.Measure)
	cpu := startCPUMeter(cfg.Warmup, cfg.CPUTime, cfg.LoadCPUTime)
	var wg sync.WaitGroup
	for c, op := range ops {
		wg.Go(func() {
			r := &results[c]
			for i := 0; ctx.Err() == nil; i++ {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				err := op(ctx, i)
				if t0.Before(measureStart) {
					continue
				}
				if err != nil {
					if r.errors == 0 {
						r.firstErr = err
					}
					r.errors++
					continue
				}
				r.latencies = append(r.latencies, time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(measureStart)
	if err := ctx.Err(); err != nil {
		return Summary{}, fmt.Errorf("cannot finish benchmark: %w", err)
	}
	used := cpu.stop()
	var (
		all      []time.Duration
		nerrs    int
		firstErr error
	)
	for _, r := range results {
		all = append(all, r.latencies...)
		nerrs += r.errors
		if firstErr == nil {
			firstErr = r.firstErr
		}
	}
	sum := summarize(all, nerrs, firstErr, elapsed)
	sum.CPU, sum.LoadCPU = used[0], used[1]
	return sum, nil
}

// cpuMeter reads CPU clocks when the measured period starts and when it ends.
type cpuMeter struct {
	clocks []func() (time.Duration, error)
	start  []time.Duration
	ok     []bool
	read   chan struct{} // closed once start holds the first reads
}

// startCPUMeter reads clocks (nil ones are skipped) after warmup.
func startCPUMeter(warmup time.Duration, clocks ...func() (time.Duration, error)) *cpuMeter {
	m := &cpuMeter{clocks: clocks, start: make([]time.Duration, len(clocks)), ok: make([]bool, len(clocks)),
		read: make(chan struct{})}
	time.AfterFunc(warmup, func() {
		for i, clock := range clocks {
			if clock != nil {
				var err error
				m.start[i], err = clock()
				m.ok[i] = err == nil
			}
		}
		close(m.read)
	})
	return m
}

// stop returns the CPU time each clock measured since the start of the measured period, 0
// for a nil clock or a failed read. Call it after the measured period.
func (m *cpuMeter) stop() []time.Duration {
	<-m.read // the measured period has started, so the timer has fired
	used := make([]time.Duration, len(m.clocks))
	for i, clock := range m.clocks {
		if !m.ok[i] {
			continue
		}
		if end, err := clock(); err == nil {
			used[i] = end - m.start[i]
		}
	}
	return used
}

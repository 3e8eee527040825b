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
	var cpuStart time.Duration
	var cpuErr error
	cpuRead := make(chan struct{})
	if cfg.CPUTime != nil {
		time.AfterFunc(cfg.Warmup, func() {
			cpuStart, cpuErr = cfg.CPUTime()
			close(cpuRead)
		})
	} else {
		close(cpuRead)
	}
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
	var cpu time.Duration
	<-cpuRead // the measured period has started, so the timer has fired
	if cfg.CPUTime != nil && cpuErr == nil {
		if cpuEnd, err := cfg.CPUTime(); err == nil {
			cpu = cpuEnd - cpuStart
		}
	}
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
	sum.CPU = cpu
	return sum, nil
}

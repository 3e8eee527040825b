package bench

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestRunCountsEveryMeasuredOperation checks that Run gives each client its own Op and that
// every operation of the measured period is counted once, as a success or as an error.
func TestRunCountsEveryMeasuredOperation(t *testing.T) {
	const clients = 4
	var mu sync.Mutex
	calls := make([]int, clients) // operations per client, warm-up included
	maxIndex := make([]int, clients)
	errFail := errors.New("every third operation fails")
	// A client whose goroutine is first scheduled after the window closes rightly makes no
	// calls, so only the counting invariants are checked, over a window long enough to have calls.
	sum, err := Run(context.Background(), Config{Clients: clients, Measure: 200 * time.Millisecond},
		func(client int) (Op, error) {
			return func(_ context.Context, i int) error {
				mu.Lock()
				calls[client]++
				maxIndex[client] = i
				mu.Unlock()
				if i%3 == 2 {
					return errFail
				}
				return nil
			}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for c := range clients {
		if calls[c] > 0 && maxIndex[c] != calls[c]-1 {
			t.Errorf("client %d: last index %d after %d calls, want indexes 0..n-1", c, maxIndex[c], calls[c])
		}
		total += calls[c]
	}
	if total == 0 {
		t.Fatal("no client made a call in 200ms")
	}
	if sum.Ops+sum.Errors != total {
		t.Errorf("ops %d + errors %d = %d, want every one of the %d calls (no warm-up)", sum.Ops, sum.Errors, sum.Ops+sum.Errors, total)
	}
	if sum.Errors == 0 || !errors.Is(sum.FirstError, errFail) {
		t.Errorf("errors = %d, first %v; want the failing operations counted and one of them kept", sum.Errors, sum.FirstError)
	}
	if sum.Elapsed < 200*time.Millisecond {
		t.Errorf("elapsed %v, want at least the measured period", sum.Elapsed)
	}
}

// TestRunExcludesWarmup checks that operations started during the warm-up are not counted.
func TestRunExcludesWarmup(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	sum, err := Run(context.Background(), Config{Clients: 1, Warmup: 200 * time.Millisecond, Measure: time.Millisecond},
		func(int) (Op, error) {
			return func(context.Context, int) error {
				mu.Lock()
				calls++
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				return nil
			}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ops >= calls {
		t.Errorf("counted %d of %d operations, want the warm-up's left out", sum.Ops, calls)
	}
}

func TestRunRejectsBadConfigAndFailingClients(t *testing.T) {
	ok := func(int) (Op, error) { return func(context.Context, int) error { return nil }, nil }
	if _, err := Run(context.Background(), Config{Clients: 0, Measure: time.Millisecond}, ok); err == nil {
		t.Error("Run with 0 clients succeeded, want an error")
	}
	errSetup := errors.New("no connection")
	_, err := Run(context.Background(), Config{Clients: 2, Measure: time.Millisecond},
		func(c int) (Op, error) {
			if c == 1 {
				return nil, errSetup
			}
			return ok(c)
		})
	if !errors.Is(err, errSetup) {
		t.Errorf("Run with a failing NewOp: err = %v, want %v", err, errSetup)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Config{Clients: 1, Measure: time.Hour}, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: err = %v, want context.Canceled", err)
	}
}

// TestRunMeasuresCPUOverTheMeasuredPeriod checks that Summary.CPU and Summary.LoadCPU are
// the differences of the CPUTime and LoadCPUTime reads at the start and the end of the
// measured period.
func TestRunMeasuresCPUOverTheMeasuredPeriod(t *testing.T) {
	var mu sync.Mutex
	reads := map[time.Duration]int{}
	clock := func(step time.Duration) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			mu.Lock()
			defer mu.Unlock()
			reads[step]++
			return time.Duration(reads[step]) * step, nil // step, then 2*step
		}
	}
	cfg := Config{Clients: 1, Warmup: time.Millisecond, Measure: time.Millisecond,
		CPUTime: clock(7 * time.Second), LoadCPUTime: clock(3 * time.Second)}
	sum, err := Run(context.Background(), cfg, func(int) (Op, error) { return func(context.Context, int) error { return nil }, nil })
	if err != nil {
		t.Fatal(err)
	}
	if reads[7*time.Second] != 2 || reads[3*time.Second] != 2 || sum.CPU != 7*time.Second || sum.LoadCPU != 3*time.Second {
		t.Errorf("clocks read %v times, Summary.CPU %v, LoadCPU %v; want 2 reads each, 7s and 3s", reads, sum.CPU, sum.LoadCPU)
	}
}

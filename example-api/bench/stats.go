package bench

import (
	"slices"
	"time"
)

// Summary is the outcome of one measured period of Run.
type Summary struct {
	// Ops is the number of operations that completed without error in the measured period.
	Ops int
	// Errors is the number of operations that failed in the measured period; FirstError is
	// the first of them (nil when Errors is 0).
	Errors     int
	FirstError error
	// Elapsed is the length of the measured period.
	Elapsed time.Duration
	// P50 and P99 are latency percentiles of the successful operations (nearest-rank
	// method); 0 when Ops is 0.
	P50, P99 time.Duration
	// CPU is the CPU time Config.CPUTime measured over the measured period; 0 when
	// Config.CPUTime is nil or failed.
	CPU time.Duration
	// LoadCPU is the CPU time Config.LoadCPUTime measured, as CPU.
	LoadCPU time.Duration
}

// OpsPerSecond is Ops divided by Elapsed in seconds; 0 when Elapsed is 0.
func (s Summary) OpsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Ops) / s.Elapsed.Seconds()
}

// summarize sorts latencies in place and returns the Summary of a period of length elapsed.
func summarize(latencies []time.Duration, errors int, firstErr error, elapsed time.Duration) Summary {
	slices.Sort(latencies)
	return Summary{
		Ops:        len(latencies),
		Errors:     errors,
		FirstError: firstErr,
		Elapsed:    elapsed,
		P50:        percentile(latencies, 50),
		P99:        percentile(latencies, 99),
	}
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the nearest-rank method:
// the smallest value such that at least p% of the values are less than or equal to it. It
// returns 0 for an empty slice.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// rank = ceil(p/100 * n), computed in integers to avoid float rounding at exact ranks.
	n := len(sorted)
	rank := (int(p*100)*n + 10000 - 1) / 10000
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

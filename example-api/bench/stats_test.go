package bench

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond // 1ms..100ms
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", []time.Duration{7}, 99, 7},
		{"median of 100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond},
		{"p100 of 100", hundred, 100, 100 * time.Millisecond},
		{"median of 3", []time.Duration{1, 2, 3}, 50, 2},
		{"p99 of 3 is the max", []time.Duration{1, 2, 3}, 99, 3},
		{"median of 4 is the lower middle", []time.Duration{1, 2, 3, 4}, 50, 2},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: percentile(%v, %v) = %v, want %v", tc.name, tc.sorted, tc.p, got, tc.want)
		}
	}
}

func TestSummarizeSortsAndRates(t *testing.T) {
	s := summarize([]time.Duration{5, 1, 4, 2, 3}, 2, nil, 2*time.Second)
	if s.Ops != 5 || s.Errors != 2 || s.P50 != 3 || s.P99 != 5 {
		t.Errorf("summarize = %+v, want 5 ops, 2 errors, p50 3, p99 5", s)
	}
	if got := s.OpsPerSecond(); got != 2.5 {
		t.Errorf("OpsPerSecond = %v, want 2.5", got)
	}
	if got := (Summary{Ops: 3}).OpsPerSecond(); got != 0 {
		t.Errorf("OpsPerSecond with no elapsed time = %v, want 0", got)
	}
}

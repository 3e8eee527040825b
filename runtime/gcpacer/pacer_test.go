package gcpacer

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live, headroom uint64
		want           int
	}{
		{live: 24 * mib, headroom: 96 * mib, want: 400},
		{live: 20 * mib, headroom: 96 * mib, want: 480},
		{live: 50 * mib, headroom: 96 * mib, want: 192},  // 192.0
		{live: 60 * mib, headroom: 96 * mib, want: 160},  // 160.0
		{live: 70 * mib, headroom: 96 * mib, want: 138},  // 137.14 rounded up
		{live: 96 * mib, headroom: 96 * mib, want: 100},  // the floor meets GOGC=100
		{live: 500 * mib, headroom: 96 * mib, want: 100}, // a large heap: the default
		{live: 0, headroom: 96 * mib, want: 9600},        // no live heap yet: counted as 1 MiB
		{live: 1000, headroom: 4 * mib, want: 400},       // likewise
		{live: 3 * mib, headroom: 4 * mib, want: 134},    // 133.3 rounded up
	} {
		if got := Percent(tc.live, tc.headroom); got != tc.want {
			t.Errorf("Percent(%d MiB, %d MiB) = %d, want %d", tc.live/mib, tc.headroom/mib, got, tc.want)
		}
	}
}

func TestStartLeavesTheOperatorsSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			before := gcPercent()
			if Start(DefaultHeadroom) {
				t.Fatalf("Start took effect with %s set", env)
			}
			if got := gcPercent(); got != before {
				t.Errorf("GOGC changed from %d to %d with %s set", before, got, env)
			}
		})
	}
	if Start(0) {
		t.Error("Start took effect with a headroom of 0")
	}
}

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestStartFollowsTheLiveHeap starts the pacer and checks that
// after collections GOGC is what Percent gives for the live heap they left, also after the
// live heap grew.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	const headroom = 64 << 20
	if !Start(headroom) {
		t.Fatal("Start returned false with neither GOGC nor GOMEMLIMIT set")
	}
	t.Cleanup(stop)
	if Start(headroom) {
		t.Error("a second Start took effect; the pacer is the process's")
	}
	var keep [][]byte
	for round := range 3 {
		// Grow the live heap (16 MiB a round), then collect until the pacer has caught up.
		for range 16 {
			keep = append(keep, make([]byte, 1<<20))
		}
		var live uint64
		var got int
		ok := false
		for range 200 {
			runtime.GC()
			time.Sleep(5 * time.Millisecond) // cleanups run on their own goroutine
			live, got = liveHeap(), gcPercent()
			if got == Percent(live, headroom) {
				ok = true
				break
			}
		}
		if !ok {
			t.Fatalf("round %d: GOGC %d with a live heap of %d bytes, want Percent = %d", round, got, live, Percent(live, headroom))
		}
		if got <= 100 {
			t.Errorf("round %d: GOGC %d with a live heap of %d bytes under a headroom of %d: want more than 100", round, got, live, headroom)
		}
	}
	runtime.KeepAlive(keep)
}

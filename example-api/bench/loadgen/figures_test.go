package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
)

// TestPeaksBefore: the run's peak RSS is read when the first fan-out bounded on its own
// starts, for the server and the anchor (both sampled here from this process), and printed;
// the fan-outs are ordered so that nothing but such fan-outs follows.
func TestPeaksBefore(t *testing.T) {
	t.Parallel()
	mem, err := bench.StartMemSampler(os.Getpid(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mem.Stop)
	anchorMem, err := bench.StartMemSampler(os.Getpid(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(anchorMem.Stop)
	var fig bench.ScaleFigures
	var out bytes.Buffer
	if err := peaksBefore(&fig, &out, bench.WatchTarget{Watchers: 10000, Rate: 10}, mem, &anchorRun{mem: anchorMem}); err != nil {
		t.Fatal(err)
	}
	if fig.PeakRSS < 1<<20 || fig.AnchorPeakRSS < 1<<20 {
		t.Errorf("peaks %d and %d bytes, want this process's RSS (>= 1 MiB)", fig.PeakRSS, fig.AnchorPeakRSS)
	}
	if want := "peak RSS so far, before the 10000-watcher fan-out"; !strings.Contains(out.String(), want) {
		t.Errorf("output %q lacks %q", out.String(), want)
	}
	o, err := parseFlags([]string{"-watch", "10000:10,0:10,64:100"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.watches; len(got) != 3 || got[2].Watchers != 10000 {
		t.Errorf("fan-outs %v, want the 10000-watcher one last", got)
	}
}

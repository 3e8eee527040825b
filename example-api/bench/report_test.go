package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWriteTableAndTargets(t *testing.T) {
	rows := []Row{
		{Op: OpCreate, Clients: 64, Server: Summary{Ops: 500, Elapsed: time.Second, P50: time.Millisecond, P99: 3 * time.Millisecond},
			Raw: Summary{Ops: 1000, Elapsed: time.Second, P50: 500 * time.Microsecond, P99: time.Millisecond}, ServerPeakRSS: 100 << 20},
		{Op: OpGet, Clients: 64, Server: Summary{Ops: 799, Elapsed: time.Second}, Raw: Summary{Ops: 1000, Elapsed: time.Second}},
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"server/raw", "50.0%", "79.9%", "1.000ms", "0.500ms", "100.0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if CheckTargets(&out, rows, IssueTargets, 200e6) {
		t.Errorf("CheckTargets passed with get at 79.9%%:\n%s", out.String())
	}
	for _, want := range []string{"create at 64 clients >= 50% of raw etcd:  50.0% PASS", "get    at 64 clients >= 80% of raw etcd:  79.9% MISS",
		"list   at 64 clients >= 100% of raw etcd: not measured",
		"update at 64 clients >= 40% of raw etcd: not measured", "peak 200.0 MB PASS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("targets lack %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if CheckTargets(&out, rows[:1], IssueTargets, MaxRSS) {
		t.Errorf("CheckTargets passed with RSS at the limit:\n%s", out.String())
	}
	if !CheckTargets(&out, rows[:1], IssueTargets, 0) {
		t.Errorf("CheckTargets failed with only passing targets measured:\n%s", out.String())
	}
	if r := (Row{Server: Summary{Ops: 1, Elapsed: time.Second}}).Ratio(); r != 0 {
		t.Errorf("Ratio with no raw operations = %v, want 0", r)
	}
}

// TestCPURatio: the raw run's CPU per operation over the server run's (server plus load
// generator), and 0 while any of them is unknown.
func TestCPURatio(t *testing.T) {
	row := Row{
		Server: Summary{Ops: 100, CPU: 30 * time.Millisecond, LoadCPU: 20 * time.Millisecond},
		Raw:    Summary{Ops: 400, LoadCPU: 40 * time.Millisecond},
	}
	// raw 100us/op; server 300us + loadgen 200us per op.
	if got := row.CPURatio(); got < 0.1999 || got > 0.2001 {
		t.Errorf("CPURatio = %v, want 0.2", got)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, []Row{row}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"300us", "200us", "100us", "20.0%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	row.Raw.LoadCPU = 0
	if got := row.CPURatio(); got != 0 {
		t.Errorf("CPURatio without the raw run's CPU = %v, want 0", got)
	}
}

// TestWatchAndMemoryTargets: a fan-out passes only with every event delivered within its
// p99 bound; a memory figure passes at or below its target.
func TestWatchAndMemoryTargets(t *testing.T) {
	var out bytes.Buffer
	s := WatchSummary{Watchers: 64, Writes: 10, Rate: 100, Delivered: 640, Expected: 640, P50: time.Millisecond,
		P99: 4 * time.Millisecond, CPU: 64 * time.Millisecond, Writing: 200 * time.Millisecond}
	if !CheckWatch(&out, s, 5*time.Millisecond) || !strings.Contains(out.String(), "640/640 events delivered") ||
		!strings.Contains(out.String(), "PASS; server CPU/event 100.0us") || !strings.Contains(out.String(), "50.0 writes/s achieved") {
		t.Errorf("a fan-out within its target: %s", out.String())
	}
	s.Delivered = 639
	if CheckWatch(&out, s, 5*time.Millisecond) {
		t.Errorf("a fan-out with a lost event passed")
	}
	s.Delivered, s.P99 = 640, 6*time.Millisecond
	if CheckWatch(&out, s, 5*time.Millisecond) {
		t.Errorf("a fan-out over its p99 bound passed")
	}
	out.Reset()
	if !CheckRSS(&out, "idle", MemStatus{RSS: MaxIdleRSS}, MaxIdleRSS) || CheckRSS(&out, "idle", MemStatus{RSS: MaxIdleRSS + 1}, MaxIdleRSS) ||
		!strings.Contains(out.String(), "idle <= 40 MB: 40.0 MB PASS") {
		t.Errorf("memory targets: %s", out.String())
	}
	out.Reset()
	CheckRSS(&out, "idle", MemStatus{RSS: 96e6, Anon: 30e6, File: 66e6}, MaxIdleRSS)
	if want := "idle <= 40 MB: 96.0 MB (anonymous 30.0 MB, file-backed 66.0 MB) MISS"; !strings.Contains(out.String(), want) {
		t.Errorf("memory figure with its split: %q, want it to contain %q", out.String(), want)
	}
}

// TestMedianCPUPerOpAndFieldManagementShare: the median run is the one in the middle by CPU
// time per operation (not by total CPU time), and the share is (with - without) / with.
func TestMedianCPUPerOpAndFieldManagementShare(t *testing.T) {
	runs := []Summary{
		{Ops: 100, CPU: 120 * time.Millisecond},  // 1200us/op
		{Ops: 1000, CPU: 900 * time.Millisecond}, // 900us/op, the most CPU time in all
		{Ops: 200, CPU: 200 * time.Millisecond},  // 1000us/op
	}
	if got := MedianCPUPerOp(runs); got != runs[2] {
		t.Errorf("MedianCPUPerOp = %+v, want the 1000us/op run %+v", got, runs[2])
	}
	if got := MedianCPUPerOp(runs[:1]); got != runs[0] {
		t.Errorf("MedianCPUPerOp of one run = %+v, want it", got)
	}
	with, without := MedianCPUPerOp(runs), Summary{Ops: 100, CPU: 75 * time.Millisecond}
	want := "update at 64 clients: server CPU/op 1000us with field management, 750us without: field management is 25.0% of an update's CPU time"
	if got := FieldManagementShare(64, with, without); got != want {
		t.Errorf("FieldManagementShare = %q, want %q", got, want)
	}
}

package bench

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// Row is one line of the comparison: one operation at one concurrency, through the server
// and raw on etcd.
type Row struct {
	Op      string
	Clients int
	Server  Summary
	Raw     Summary
	// ServerPeakRSS is the server's highest sampled VmRSS during the row's server run, in
	// bytes; 0 when unknown.
	ServerPeakRSS uint64
	// Anchor is the same operation at the same concurrency through the anchor
	// (k8s.io/sample-apiserver on the benchmark's etcd, loadgen's -anchor-binary), when
	// HasAnchor; AnchorPeakRSS its highest sampled VmRSS in that run (0 when unknown).
	Anchor        Summary
	HasAnchor     bool
	AnchorPeakRSS uint64
}

// AnchorRatio is the server's throughput as a multiple of the anchor's (ops/s server / ops/s
// anchor); 0 when the anchor was not measured or completed nothing.
func (r Row) AnchorRatio() float64 {
	anchor := r.Anchor.OpsPerSecond()
	if !r.HasAnchor || anchor == 0 {
		return 0
	}
	return r.Server.OpsPerSecond() / anchor
}

// Ratio is the server's throughput as a fraction of raw etcd's (ops/s server / ops/s raw);
// 0 when raw etcd completed nothing.
func (r Row) Ratio() float64 {
	raw := r.Raw.OpsPerSecond()
	if raw == 0 {
		return 0
	}
	return r.Server.OpsPerSecond() / raw
}

// CPURatio is the throughput ratio the CPU times predict for a machine the benchmark has
// to itself: the load generator's CPU time per raw operation (etcd and raw clients) over
// the CPU time per server operation of the server and the load generator (etcd and HTTP
// clients). Unlike Ratio, other processes' load does not move it. 0 when a time is unknown.
func (r Row) CPURatio() float64 {
	raw, srv, load := perOp(r.Raw.LoadCPU, r.Raw), perOp(r.Server.CPU, r.Server), perOp(r.Server.LoadCPU, r.Server)
	if raw == 0 || srv == 0 || load == 0 {
		return 0
	}
	return raw / (srv + load)
}

// perOp is d per operation of s, in seconds; 0 when unknown.
func perOp(d time.Duration, s Summary) float64 {
	if d == 0 || s.Ops == 0 {
		return 0
	}
	return d.Seconds() / float64(s.Ops)
}

// WriteTable writes rows as an aligned table: op, clients, then ops/s, p50 and p99 of the
// server and of raw etcd, the ratio server/raw, errors (server/raw), the server's CPU time
// per operation, the load generator's CPU time per operation in the server run and in the
// raw run, the CPU ratio (Row.CPURatio), and the server's peak RSS in the row. When a row has
// the anchor, every row also has the anchor's ops/s, p50 and p99, the ratio server/anchor (a
// multiple), the anchor's errors and its peak RSS in the row, after server/raw.
func WriteTable(w io.Writer, rows []Row) error {
	anchor := slices.ContainsFunc(rows, func(r Row) bool { return r.HasAnchor })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "op\tclients\tserver ops/s\tp50\tp99\traw ops/s\tp50\tp99\tserver/raw\t"
	if anchor {
		head += "anchor ops/s\tp50\tp99\tserver/anchor\tanchor errors\tanchor RSS MiB\t"
	}
	fmt.Fprintln(tw, head+"errors\tserver CPU/op\tloadgen CPU/op\traw CPU/op\tCPU ratio\tserver RSS MiB\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t%5.1f%%\t",
			r.Op, r.Clients,
			r.Server.OpsPerSecond(), ms(r.Server.P50), ms(r.Server.P99),
			r.Raw.OpsPerSecond(), ms(r.Raw.P50), ms(r.Raw.P99), 100*r.Ratio())
		if anchor {
			if r.HasAnchor {
				fmt.Fprintf(tw, "%.0f\t%s\t%s\t%s\t%d\t%s\t", r.Anchor.OpsPerSecond(), ms(r.Anchor.P50), ms(r.Anchor.P99),
					times(r.AnchorRatio()), r.Anchor.Errors, mib(r.AnchorPeakRSS))
			} else {
				fmt.Fprint(tw, "-\t-\t-\t-\t-\t-\t")
			}
		}
		fmt.Fprintf(tw, "%d/%d\t%s\t%s\t%s\t%s\t%s\t\n",
			r.Server.Errors, r.Raw.Errors, cpuPerOp(r.Server.CPU, r.Server),
			cpuPerOp(r.Server.LoadCPU, r.Server), cpuPerOp(r.Raw.LoadCPU, r.Raw), percent(r.CPURatio()), mib(r.ServerPeakRSS))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("cannot write table: %w", err)
	}
	return nil
}

// ms formats d in milliseconds with three significant decimals, e.g. "0.412ms".
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// cpuPerOp formats the CPU time d per operation of s in microseconds, or "-" when unknown.
func cpuPerOp(d time.Duration, s Summary) string {
	if d == 0 || s.Ops == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0fus", float64(d)/float64(s.Ops)/float64(time.Microsecond))
}

// times formats a ratio as a multiple, e.g. "3.71x", or "-" for 0 (unknown).
func times(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// percent formats a ratio as a percentage, or "-" for 0 (unknown).
func percent(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%5.1f%%", 100*r)
}

// mib formats a byte count in MiB, or "-" for 0 (unknown).
func mib(b uint64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

// Target is a speed target: at Clients clients, the server reaches at least MinRatio of raw
// etcd's throughput for Op.
type Target struct {
	Op       string
	Clients  int
	MinRatio float64
}

// IssueTargets are the project's throughput targets: a paged
// list at least as fast as raw etcd's ranges at 1 and 64 clients, get at 80%, create at 50%
// and update at 40% at 64 clients. The memory targets are MaxRSS, MaxIdleRSS and
// MaxCachedRSS; the watch targets WatchTargets.
var IssueTargets = []Target{
	{OpCreate, 64, 0.50},
	{OpUpdate, 64, 0.40},
	{OpGet, 64, 0.80},
	{OpList, 1, 1.00},
	{OpList, 64, 1.00},
}

// Memory targets, in bytes: the server's RSS stays at or below MaxRSS throughout the
// benchmark, MaxIdleRSS right after it starts, MaxCachedRSS with MemObjects objects of about
// 1 KiB stored (and cached).
const (
	MaxRSS       = 300 * 1000 * 1000
	MaxIdleRSS   = 40 * 1000 * 1000
	MaxCachedRSS = 120 * 1000 * 1000
	MemObjects   = 10000
)

// WatchTarget is a watch fan-out target: with Watchers watchers and Rate writes a second,
// every event reaches every watcher with a p99 delivery latency of at most MaxP99.
type WatchTarget struct {
	Watchers int
	Rate     float64
	MaxP99   time.Duration
}

// WatchTargets are the watch fan-out targets: 1,000 watchers at 10 writes/s (p99 <= 50ms),
// 10,000 at 10 writes/s (p99 <= 100ms) and 64 at 100 writes/s (p99 <= 5ms).
var WatchTargets = []WatchTarget{{1000, 10, 50 * time.Millisecond}, {10000, 10, ScaleMaxP99Watch10000}, {64, 100, 5 * time.Millisecond}}

// CheckWatch writes the line of one fan-out measurement with its target (PASS or MISS) and
// reports whether the target was met; with no watchers (the writer's baseline) the line
// has the writer's latencies and no target.
func CheckWatch(w io.Writer, s WatchSummary, target time.Duration) bool {
	if s.Watchers == 0 {
		fmt.Fprintf(w, "watch writer alone (no watchers) at %3.0f writes/s: writer p50 %s, p99 %s\n", s.Rate, ms(s.WriterP50), ms(s.WriterP99))
		return true
	}
	ok := s.Delivered == s.Expected && s.P99 <= target
	verdict := "PASS"
	if !ok {
		verdict = "MISS"
	}
	fmt.Fprintf(w, "target watch %4d watchers at %3.0f writes/s: %d/%d events delivered, p50 %s, p99 %s (<= %s) %s; server CPU/event %s; %s\n",
		s.Watchers, s.Rate, s.Delivered, s.Expected,
		ms(s.P50), ms(s.P99), target, verdict, cpuPerEvent(s), watchDetails(s))
	return ok
}

// WriteAnchorWatch writes the line of one fan-out measurement of the anchor.
func WriteAnchorWatch(w io.Writer, s WatchSummary) {
	if s.Watchers == 0 {
		fmt.Fprintf(w, "anchor watch writer alone (no watchers) at %3.0f writes/s: writer p50 %s, p99 %s\n", s.Rate, ms(s.WriterP50), ms(s.WriterP99))
		return
	}
	fmt.Fprintf(w, "anchor watch %4d watchers at %3.0f writes/s: %d/%d events delivered, p50 %s, p99 %s; anchor CPU/event %s; %s\n",
		s.Watchers, s.Rate, s.Delivered, s.Expected, ms(s.P50), ms(s.P99), cpuPerEvent(s), watchDetails(s))
}

// watchDetails formats a fan-out's lost events, writer latencies and achieved rate,
// connections and peak RSS.
func watchDetails(s WatchSummary) string {
	return fmt.Sprintf("%d events lost (%d watchers terminated by the server); writer p50 %s, p99 %s, %.1f writes/s achieved; %d connections; peak RSS %s MiB",
		s.Lost(), s.Terminated, ms(s.WriterP50), ms(s.WriterP99), s.WriteRate(), s.Connections, mib(s.PeakRSS))
}

// cpuPerEvent formats the server's CPU time per delivered event, or "-" when unknown.
func cpuPerEvent(s WatchSummary) string {
	if s.CPU == 0 || s.Delivered == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fus", float64(s.CPUPerEvent())/float64(time.Microsecond))
}

// CheckRSS writes the line of one memory figure (m.RSS) with its target (PASS or MISS) and
// reports whether it was met. When m has the split, the line shows it: anonymous memory and
// file-backed pages (mostly the executable's mapped text and data, which the target counts
// too).
func CheckRSS(w io.Writer, what string, m MemStatus, target uint64) bool {
	verdict := "PASS"
	if m.RSS > target {
		verdict = "MISS"
	}
	split := ""
	if m.Anon+m.File > 0 {
		split = fmt.Sprintf(" (anonymous %.1f MB, file-backed %.1f MB)", float64(m.Anon)/1e6, float64(m.File)/1e6)
	}
	fmt.Fprintf(w, "target server RSS %s <= %d MB: %.1f MB%s %s\n", what, target/1000/1000, float64(m.RSS)/1e6, split, verdict)
	return m.RSS <= target
}

// CheckTargets writes one line per target found in rows ("PASS" or "MISS" with the measured
// ratio) and one for the peak RSS (skipped when peakRSS is 0), and reports whether all were
// met. A target whose row is absent is reported as not measured and does not count as missed.
func CheckTargets(w io.Writer, rows []Row, targets []Target, peakRSS uint64) bool {
	ok := true
	for _, t := range targets {
		found := false
		for _, r := range rows {
			if r.Op != t.Op || r.Clients != t.Clients {
				continue
			}
			found = true
			verdict := "PASS"
			if r.Ratio() < t.MinRatio {
				verdict, ok = "MISS", false
			}
			fmt.Fprintf(w, "target %-6s at %2d clients >= %.0f%% of raw etcd: %5.1f%% %s\n",
				t.Op, t.Clients, 100*t.MinRatio, 100*r.Ratio(), verdict)
		}
		if !found {
			fmt.Fprintf(w, "target %-6s at %2d clients >= %.0f%% of raw etcd: not measured\n", t.Op, t.Clients, 100*t.MinRatio)
		}
	}
	if peakRSS > 0 {
		verdict := "PASS"
		if peakRSS >= MaxRSS {
			verdict, ok = "MISS", false
		}
		fmt.Fprintf(w, "target server RSS < %d MB throughout: peak %.1f MB %s\n", MaxRSS/1000/1000, float64(peakRSS)/1e6, verdict)
	}
	return ok
}

// MedianCPUPerOp returns the run of runs (one or more) with the median server CPU time per
// operation (the upper median of an even count).
func MedianCPUPerOp(runs []Summary) Summary {
	sorted := slices.SortedFunc(slices.Values(runs), func(a, b Summary) int {
		return cmp.Compare(perOp(a.CPU, a), perOp(b.CPU, b))
	})
	return sorted[len(sorted)/2]
}

// FieldManagementShare describes field management's share of an update's CPU time at
// clients clients, from the server's CPU time per update with it (with) and without it
// (without): "update at 64 clients: server CPU/op 312us with field management, 231us
// without: field management is 26.0% of an update's CPU time" (the target is at most 25%).
func FieldManagementShare(clients int, with, without Summary) string {
	w, wo := perOp(with.CPU, with), perOp(without.CPU, without)
	share := "-"
	if w > 0 && wo > 0 {
		share = fmt.Sprintf("%.1f%%", 100*(w-wo)/w)
	}
	return fmt.Sprintf("update at %2d clients: server CPU/op %s with field management, %s without: field management is %s of an update's CPU time",
		clients, cpuPerOp(with.CPU, with), cpuPerOp(without.CPU, without), share)
}

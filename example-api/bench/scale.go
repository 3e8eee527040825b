package bench

import (
	"fmt"
	"io"
	"time"
)

// ScaleFigures is one run's figures of the server and of the anchor (k8s.io/sample-apiserver on
// the benchmark's etcd) that CheckScaleTargets checks the scale targets on. A zero figure is
// unknown: its targets are reported as not measured.
type ScaleFigures struct {
	// Rows are the table's rows, with the anchor's summaries (Row.HasAnchor).
	Rows []Row
	// Embedded is whether the server ran on its embedded etcd (else on the benchmark's
	// external etcd, the anchor's).
	Embedded bool
	// Watch and AnchorWatch are the fan-outs of the server and of the anchor, with their
	// PeakRSS; a fan-out of 0 watchers is the writer's baseline.
	Watch, AnchorWatch []WatchSummary
	// IdleRSS, CachedRSS (with MemObjects more objects stored) and PeakRSS (over the whole
	// run, fan-outs of FanoutRSSWatchers or more aside) are the server's VmRSS in bytes; the
	// Anchor ones the anchor's.
	IdleRSS, CachedRSS, PeakRSS                   uint64
	AnchorIdleRSS, AnchorCachedRSS, AnchorPeakRSS uint64
}

// The scale targets' absolute bounds, in bytes and durations.
const (
	// ScaleMaxPeakRSS bounds the server's RSS over the whole run but the fan-outs of
	// FanoutRSSWatchers or more watchers, which ScaleMaxFanoutRSS bounds: the 10,000-watcher
	// fan-out has a bound of its own, 1 GB, that a bound over all of the run would leave
	// meaningless.
	ScaleMaxPeakRSS = 400 * 1000 * 1000
	// ScaleMaxCachedRSS bounds its RSS with MemObjects objects stored.
	ScaleMaxCachedRSS = 150 * 1000 * 1000
	// ScaleMaxIdleRSSEmbedded bounds its idle RSS with the embedded etcd (on the external
	// one the bound is the anchor's idle RSS).
	ScaleMaxIdleRSSEmbedded = 80 * 1000 * 1000
	// ScaleMaxFanoutRSS bounds its RSS during the 10,000-watcher fan-out.
	ScaleMaxFanoutRSS = 1000 * 1000 * 1000
	// FanoutRSSWatchers is the fewest watchers of a fan-out that ScaleMaxFanoutRSS bounds
	// rather than ScaleMaxPeakRSS; such fan-outs run after the others (see OrderFanouts).
	FanoutRSSWatchers = 10000
	// ScaleMaxP99Watch1000 and ScaleMaxP99Watch10000 bound the event p99 of the
	// 1,000- and 10,000-watcher fan-outs at 10 writes/s.
	ScaleMaxP99Watch1000  = 20 * time.Millisecond
	ScaleMaxP99Watch10000 = 100 * time.Millisecond
	// ScaleMinAnchorRatio is the least multiple of the anchor's throughput of every row.
	ScaleMinAnchorRatio = 2.0
	// MinWriterP99Writes is the fewest writes of each fan-out whose writer's p99 is compared:
	// with 5 of them above the p99, it is not in effect the maximum of a handful.
	MinWriterP99Writes = 500
)

// scaleRawShares are the shares of raw etcd measured on a 16-core machine (etcd, server and
// load generator on their own cores) with the embedded etcd ("today's share", which every row keeps), and the list targets (100%).
var scaleRawShares = []Target{
	{OpCreate, 64, 0.57},
	{OpGet, 64, 1.23},
	{OpUpdate, 64, 0.44},
	{OpList, 1, 1.00},
	{OpList, 64, 1.00},
}

// scaleChecks accumulates CheckScaleTargets's verdicts.
type scaleChecks struct {
	w              io.Writer
	met, missed, n int // n: not measured
}

// line writes one target's line: what, the measured value, and PASS or MISS.
func (c *scaleChecks) line(ok bool, format string, args ...any) {
	verdict := "PASS"
	if ok {
		c.met++
	} else {
		verdict = "MISS"
		c.missed++
	}
	fmt.Fprintf(c.w, "scale: "+format+" %s\n", append(args, verdict)...)
}

// none writes the line of a target not measured.
func (c *scaleChecks) none(format string, args ...any) {
	c.n++
	fmt.Fprintf(c.w, "scale: "+format+": not measured\n", args...)
}

// CheckScaleTargets writes one line per scale target (the server side by side with kube's
// own server, k8s.io/sample-apiserver, on the same etcd and load), PASS or MISS with the measured values, or "not measured", and
// returns how many were met and missed:
//
//   - every row at least ScaleMinAnchorRatio times the anchor's throughput;
//   - create, get and update at 64 clients at least today's share of raw etcd (embedded
//     etcd only), lists at 1 and 64 clients at least raw etcd's ranges;
//   - create p99 at 64 clients at most the anchor's;
//   - 1,000 watchers x 10 writes/s: no event lost, p99 at most the anchor's and at most
//     ScaleMaxP99Watch1000; the writer's p99 with them at most 2x its p99 with none;
//   - 10,000 watchers x 10 writes/s: no event lost, p99 at most ScaleMaxP99Watch10000,
//     server RSS at most ScaleMaxFanoutRSS;
//   - idle RSS at most the anchor's (external etcd) or ScaleMaxIdleRSSEmbedded (embedded);
//     RSS with MemObjects objects at most ScaleMaxCachedRSS; peak RSS at most
//     ScaleMaxPeakRSS.
//
// The aged-server targets (after 500,000 creates) are not part of this run.
func CheckScaleTargets(w io.Writer, in ScaleFigures) (met, missed int) {
	c := &scaleChecks{w: w}
	for _, r := range in.Rows {
		if !r.HasAnchor || r.Anchor.Ops == 0 {
			c.none("%-6s at %2d clients >= %.0fx the anchor", r.Op, r.Clients, ScaleMinAnchorRatio)
			continue
		}
		c.line(r.AnchorRatio() >= ScaleMinAnchorRatio, "%-6s at %2d clients >= %.0fx the anchor: %.0f ops/s against %.0f, %s",
			r.Op, r.Clients, ScaleMinAnchorRatio, r.Server.OpsPerSecond(), r.Anchor.OpsPerSecond(), times(r.AnchorRatio()))
	}
	for _, t := range scaleRawShares {
		if t.Op != OpList && !in.Embedded {
			continue // today's shares are the embedded topology's
		}
		r, ok := findRow(in.Rows, t.Op, t.Clients)
		if !ok || r.Raw.Ops == 0 { // raw etcd completed nothing in the measured period: no ratio
			c.none("%-6s at %2d clients >= %.0f%% of raw etcd", t.Op, t.Clients, 100*t.MinRatio)
			continue
		}
		c.line(r.Ratio() >= t.MinRatio, "%-6s at %2d clients >= %.0f%% of raw etcd: %.1f%%", t.Op, t.Clients, 100*t.MinRatio, 100*r.Ratio())
	}
	if r, ok := findRow(in.Rows, OpCreate, 64); ok && r.HasAnchor && r.Anchor.Ops > 0 {
		c.line(r.Server.P99 <= r.Anchor.P99, "create p99 at 64 clients <= the anchor's: %s against %s", ms(r.Server.P99), ms(r.Anchor.P99))
	} else {
		c.none("create p99 at 64 clients <= the anchor's")
	}
	checkFanouts(c, in)
	checkMemory(c, in)
	return c.met, c.missed
}

// checkFanouts checks the watch targets of CheckScaleTargets.
func checkFanouts(c *scaleChecks, in ScaleFigures) {
	alone, okAlone := findWatch(in.Watch, 0, 10)
	w1k, ok1k := findWatch(in.Watch, 1000, 10)
	a1k, okA1k := findWatch(in.AnchorWatch, 1000, 10)
	switch {
	case ok1k && okA1k:
		c.line(w1k.Lost() == 0 && w1k.P99 <= a1k.P99 && w1k.P99 <= ScaleMaxP99Watch1000,
			"1000 watchers x 10 writes/s: p99 <= the anchor's and <= %s, none lost: p99 %s against %s, %d lost",
			ScaleMaxP99Watch1000, ms(w1k.P99), ms(a1k.P99), w1k.Lost())
	case ok1k:
		c.line(w1k.Lost() == 0 && w1k.P99 <= ScaleMaxP99Watch1000,
			"1000 watchers x 10 writes/s: p99 <= %s (anchor not measured), none lost: p99 %s, %d lost",
			ScaleMaxP99Watch1000, ms(w1k.P99), w1k.Lost())
	default:
		c.none("1000 watchers x 10 writes/s: p99 <= the anchor's and <= %s", ScaleMaxP99Watch1000)
	}
	switch {
	case ok1k && okAlone && min(w1k.Writes, alone.Writes) < MinWriterP99Writes:
		c.none("writer's p99 with 1000 watchers <= 2x with none: %s against %s, but of %d and %d writes (a p99 wants >= %d: -watch-duration >= %s)",
			ms(w1k.WriterP99), ms(alone.WriterP99), w1k.Writes, alone.Writes, MinWriterP99Writes,
			time.Duration(float64(MinWriterP99Writes)/w1k.Rate*float64(time.Second)))
	case ok1k && okAlone:
		c.line(w1k.WriterP99 <= 2*alone.WriterP99, "writer's p99 with 1000 watchers <= 2x with none: %s against %s (%d and %d writes)",
			ms(w1k.WriterP99), ms(alone.WriterP99), w1k.Writes, alone.Writes)
	default:
		c.none("writer's p99 with 1000 watchers <= 2x with none (-watch 0:10 and 1000:10)")
	}
	if w, ok := findWatch(in.Watch, 10000, 10); ok {
		c.line(w.Lost() == 0 && w.P99 <= ScaleMaxP99Watch10000 && w.PeakRSS > 0 && w.PeakRSS <= ScaleMaxFanoutRSS,
			"10000 watchers x 10 writes/s: none lost, p99 <= %s, server RSS <= %d MB: %d lost, p99 %s, peak RSS %.1f MB",
			ScaleMaxP99Watch10000, ScaleMaxFanoutRSS/1000/1000, w.Lost(), ms(w.P99), float64(w.PeakRSS)/1e6)
	} else {
		c.none("10000 watchers x 10 writes/s: none lost, p99 <= %s, server RSS <= %d MB", ScaleMaxP99Watch10000, ScaleMaxFanoutRSS/1000/1000)
	}
}

// checkMemory checks the memory targets of CheckScaleTargets.
func checkMemory(c *scaleChecks, in ScaleFigures) {
	switch {
	case in.IdleRSS == 0:
		c.none("idle RSS")
	case in.Embedded:
		c.line(in.IdleRSS <= ScaleMaxIdleRSSEmbedded, "idle RSS with the embedded etcd <= %d MB: %.1f MB (anchor %s MB)",
			ScaleMaxIdleRSSEmbedded/1000/1000, float64(in.IdleRSS)/1e6, mb(in.AnchorIdleRSS))
	case in.AnchorIdleRSS == 0:
		c.none("idle RSS <= the anchor's (%.1f MB)", float64(in.IdleRSS)/1e6)
	default:
		c.line(in.IdleRSS <= in.AnchorIdleRSS, "idle RSS <= the anchor's: %.1f MB against %.1f MB",
			float64(in.IdleRSS)/1e6, float64(in.AnchorIdleRSS)/1e6)
	}
	if in.CachedRSS == 0 {
		c.none("RSS with %d objects <= %d MB", MemObjects, ScaleMaxCachedRSS/1000/1000)
	} else {
		c.line(in.CachedRSS <= ScaleMaxCachedRSS, "RSS with %d objects <= %d MB: %.1f MB (anchor %s MB)",
			MemObjects, ScaleMaxCachedRSS/1000/1000, float64(in.CachedRSS)/1e6, mb(in.AnchorCachedRSS))
	}
	if in.PeakRSS == 0 {
		c.none("peak RSS <= %d MB", ScaleMaxPeakRSS/1000/1000)
	} else {
		c.line(in.PeakRSS <= ScaleMaxPeakRSS, "peak RSS over the run (fan-outs of >= %d watchers aside) <= %d MB: %.1f MB (anchor %s MB)",
			FanoutRSSWatchers, ScaleMaxPeakRSS/1000/1000, float64(in.PeakRSS)/1e6, mb(in.AnchorPeakRSS))
	}
}

// findRow returns the row of op at clients.
func findRow(rows []Row, op string, clients int) (Row, bool) {
	for _, r := range rows {
		if r.Op == op && r.Clients == clients {
			return r, true
		}
	}
	return Row{}, false
}

// findWatch returns the fan-out of watchers at rate writes a second.
func findWatch(ws []WatchSummary, watchers int, rate float64) (WatchSummary, bool) {
	for _, w := range ws {
		if w.Watchers == watchers && w.Rate == rate {
			return w, true
		}
	}
	return WatchSummary{}, false
}

// mb formats a byte count in MB (10^6), or "-" for 0 (unknown).
func mb(b uint64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/1e6)
}

// OrderFanouts returns the fan-outs in the order a run measures them: those of fewer than
// FanoutRSSWatchers watchers first, then the others, each group in the given order. The
// run's peak RSS, which ScaleMaxPeakRSS bounds, is read before the first of the others.
func OrderFanouts(ts []WatchTarget) []WatchTarget {
	out := make([]WatchTarget, 0, len(ts))
	for _, big := range []bool{false, true} {
		for _, t := range ts {
			if (t.Watchers >= FanoutRSSWatchers) == big {
				out = append(out, t)
			}
		}
	}
	return out
}

// FanoutDuration is how long a fan-out of t writes when no duration is given: long enough for
// MinWriterP99Writes writes at its rate (50s at 10 writes/s), so that its writer's p99 can be
// compared with the writer's alone, and at least 10s; a fan-out of FanoutRSSWatchers or more,
// whose writer's p99 is compared with nothing, writes for 10s.
func FanoutDuration(t WatchTarget) time.Duration {
	const least = 10 * time.Second
	if t.Watchers >= FanoutRSSWatchers || t.Rate <= 0 {
		return least
	}
	return max(least, time.Duration(float64(MinWriterP99Writes)/t.Rate*float64(time.Second)))
}

package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
)

// idleRSS waits a second for the freshly started servers to settle and reads the memory
// status of each.
func idleRSS(ctx context.Context, pids []int) ([]bench.MemStatus, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Second):
	}
	var out []bench.MemStatus
	for _, pid := range pids {
		m, err := bench.ReadMemStatus(pid)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// figures measures and prints the watch fan-outs and the memory figures with their targets:
// idle RSS (read at start, one figure per server), RSS with o.memObjects objects stored
// (stored, measured before the rows; nil: not measured), peak RSS (CheckTargets' line),
// and the same of the anchor when it is not nil (the anchor's
// fan-outs right after the server's, its RSS with as many objects stored). In process, RSS
// is loadgen's and is printed without a verdict. The watch fan-outs and the stored objects
// go to the first server (-etcd cluster measures neither, see checkTopology). It returns
// the figures the scale targets are checked on (bench.ScaleFigures, without the rows; with
// the peak RSS only when a fan-out of bench.FanoutRSSWatchers or more ran, see peaksBefore,
// else benchmark adds the whole run's).
func figures(ctx context.Context, o *options, out io.Writer, s *bench.Scenario, servers []*apiServer, idle []bench.MemStatus, idleErr error, stored *storedFigures,
	serverCPU func() (time.Duration, error), mem *bench.MemSampler, anchor *anchorRun) (bench.ScaleFigures, error) {
	var fig bench.ScaleFigures
	srv := servers[0]
	aside := false
	for _, t := range o.watches {
		if t.Watchers >= bench.FanoutRSSWatchers && !aside && !o.inProcess {
			aside = true
			if err := peaksBefore(&fig, out, t, mem, anchor); err != nil {
				return fig, err
			}
		}
		cfg := bench.WatchConfig{ServerURL: srv.url, TLS: srv.tls, Template: s.Template(), Watchers: t.Watchers, Rate: t.Rate,
			Duration: fanoutDuration(o, t), CPUTime: serverCPU}
		if o.inProcess {
			cfg.CPUTime = nil // the process's CPU time is the watchers' too
		}
		mem.TakePeak()
		sum, err := bench.RunWatchFanout(ctx, cfg)
		if err != nil {
			return fig, fmt.Errorf("watch fan-out of %d watchers at %v writes/s: %w", t.Watchers, t.Rate, err)
		}
		sum.PeakRSS = mem.TakePeak()
		bench.CheckWatch(out, sum, t.MaxP99)
		fig.Watch = append(fig.Watch, sum)
		if anchor == nil {
			continue
		}
		cfg.ServerURL, cfg.TLS, cfg.Template, cfg.CPUTime = anchor.srv.url, anchor.srv.tls, anchor.scenario.Template(), anchor.cpu
		anchor.mem.TakePeak()
		if sum, err = bench.RunWatchFanout(ctx, cfg); err != nil {
			return fig, fmt.Errorf("anchor: watch fan-out of %d watchers at %v writes/s: %w", t.Watchers, t.Rate, err)
		}
		sum.PeakRSS = anchor.mem.TakePeak()
		bench.WriteAnchorWatch(out, sum)
		fig.AnchorWatch = append(fig.AnchorWatch, sum)
	}
	if o.inProcess {
		fmt.Fprintln(out, "memory figures not measured in process (RSS is loadgen's)")
		return fig, nil
	}
	if idleErr != nil {
		return fig, fmt.Errorf("cannot read the idle RSS: %w", idleErr)
	}
	for i, m := range idle {
		what := "idle after start"
		if len(idle) > 1 {
			what += fmt.Sprintf(" (replica %d)", i)
		}
		bench.CheckRSS(out, what, m, bench.MaxIdleRSS)
	}
	fig.IdleRSS = idle[0].RSS
	if anchor != nil {
		fig.AnchorIdleRSS = anchor.idle.RSS
		fmt.Fprintf(out, "anchor RSS idle after start: %.1f MB (anonymous %.1f MB, file-backed %.1f MB)\n",
			float64(anchor.idle.RSS)/1e6, float64(anchor.idle.Anon)/1e6, float64(anchor.idle.File)/1e6)
	}
	if stored != nil {
		what := fmt.Sprintf("with %d more objects of %d bytes stored and cached", o.memObjects, s.ObjectBytes())
		bench.CheckRSS(out, what, stored.server, bench.MaxCachedRSS)
		fig.CachedRSS = stored.server.RSS
		if anchor != nil {
			m := stored.anchor
			fmt.Fprintf(out, "anchor RSS with %d more objects of %d bytes stored and cached: %.1f MB (anonymous %.1f MB, file-backed %.1f MB)\n",
				o.memObjects, anchor.scenario.ObjectBytes(), float64(m.RSS)/1e6, float64(m.Anon)/1e6, float64(m.File)/1e6)
			fig.AnchorCachedRSS = m.RSS
		}
	}
	return fig, nil
}

// peaksBefore sets fig's PeakRSS and AnchorPeakRSS (when anchor is not nil) to the peaks so
// far, read just before fan-out t, the first of bench.FanoutRSSWatchers watchers or more,
// and prints them: the run's peaks that bench.ScaleMaxPeakRSS bounds (such fan-outs run last,
// bench.OrderFanouts, and have a bound of their own).
func peaksBefore(fig *bench.ScaleFigures, out io.Writer, t bench.WatchTarget, mem *bench.MemSampler, anchor *anchorRun) error {
	var err error
	if fig.PeakRSS, err = mem.PeakNow(); err != nil {
		return fmt.Errorf("cannot read the server's peak RSS: %w", err)
	}
	anchorPeak := "not measured"
	if anchor != nil {
		if fig.AnchorPeakRSS, err = anchor.mem.PeakNow(); err != nil {
			return fmt.Errorf("cannot read the anchor's peak RSS: %w", err)
		}
		anchorPeak = fmt.Sprintf("%.1f MiB", float64(fig.AnchorPeakRSS)/(1<<20))
	}
	fmt.Fprintf(out, "peak RSS so far, before the %d-watcher fan-out (the run's peak, which the fan-outs of %d watchers or more, bounded on their own, leave aside): "+
		"server %.1f MiB, anchor %s\n", t.Watchers, bench.FanoutRSSWatchers, float64(fig.PeakRSS)/(1<<20), anchorPeak)
	return nil
}

// storedFigures are the RSS of the server and of the anchor (zero without one) with
// -mem-objects more objects stored.
type storedFigures struct{ server, anchor bench.MemStatus }

// measureStored stores o.memObjects objects through the server (and the anchor, when not
// nil) and reads their RSS: before the rows, so that the figure is a server's holding the
// scenario's objects and these, not every object the rows and fan-outs wrote nor the garbage
// they left. nil when the figure is not measured (-mem-objects 0, -in-process).
func measureStored(ctx context.Context, o *options, s *bench.Scenario, pid int, anchor *anchorRun) (*storedFigures, error) {
	if o.memObjects == 0 || o.inProcess {
		return nil, nil
	}
	var f storedFigures
	var err error
	if f.server, err = storedRSS(ctx, s, pid, o.memObjects); err != nil {
		return nil, err
	}
	if anchor != nil {
		if f.anchor, err = storedRSS(ctx, anchor.scenario, anchor.srv.pid, o.memObjects); err != nil {
			return nil, fmt.Errorf("anchor: %w", err)
		}
	}
	return &f, nil
}

// storedRSS stores n more objects through s's server and reads process pid's memory once the
// caches and the collector settled.
func storedRSS(ctx context.Context, s *bench.Scenario, pid, n int) (bench.MemStatus, error) {
	if err := s.StoreObjects(ctx, n); err != nil {
		return bench.MemStatus{}, err
	}
	select {
	case <-ctx.Done():
		return bench.MemStatus{}, ctx.Err()
	case <-time.After(bench.StoredSettle):
	}
	return bench.ReadMemStatus(pid)
}

package app

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// allocatedBy returns the bytes of heap memory f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestEtcdClientLoggerBuildsNoSampler builds the etcd client's logger as the server does: it
// allocates no sampler (zap's counter table is 448 KiB, kept for the life of the process)
// until the client logs.
func TestEtcdClientLoggerBuildsNoSampler(t *testing.T) {
	const table = 7 * 4096 * 16 // zapcore's sampler counters: levels x counters x 16 bytes
	var lg *zap.Logger
	var err error
	if n := allocatedBy(func() { lg, err = etcdClientLogger() }); err != nil || n >= table/2 {
		t.Fatalf("etcdClientLogger allocated %d bytes (err %v), want less than %d: no sampler yet", n, err, table/2)
	}
	if n := allocatedBy(func() { lg.Debug("below the client's level") }); n >= table/2 {
		t.Errorf("a debug line allocated %d bytes, want no sampler for a line below the level", n)
	}
}

// TestSampleLazily checks that sampleLazily builds its sampler at the first enabled entry
// only, and then samples as the sampler does, one count per message shared by the cores
// With derives, with their fields.
func TestSampleLazily(t *testing.T) {
	base, logs := observer.New(zapcore.InfoLevel)
	built := 0
	core := sampleLazily(base, func(c zapcore.Core) zapcore.Core {
		built++
		return zapcore.NewSamplerWithOptions(c, time.Hour, 100, 100)
	})
	lg := zap.New(core)
	child := lg.With(zap.String("endpoint", "a"))
	lg.Debug("dropped below the level")
	if built != 0 {
		t.Fatalf("sampler built %d times before any enabled entry, want 0", built)
	}
	if got := zapcore.LevelOf(core); got != zapcore.InfoLevel {
		t.Errorf("LevelOf = %v, want info", got)
	}
	for range 150 {
		lg.Warn("retrying")
	}
	for range 100 {
		child.Warn("retrying")
	}
	if built != 1 {
		t.Errorf("sampler built %d times, want once", built)
	}
	// 250 lines of one message in one tick: the first 100 and then every 100th (the 200th).
	entries := logs.FilterMessage("retrying").All()
	if len(entries) != 101 {
		t.Fatalf("%d lines written, want 101 (100, then every 100th)", len(entries))
	}
	if fields := entries[100].ContextMap(); fields["endpoint"] != "a" {
		t.Errorf("the derived logger's line has fields %v, want endpoint=a", fields)
	}
	if err := core.Sync(); err != nil {
		t.Errorf("Sync: %v", err)
	}
}

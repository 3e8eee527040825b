package app

import (
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// etcdClientLogger is the logger clientv3.New builds when given none
// (logutil.CreateDefaultZapLogger at clientv3.ClientLogLevel, which ETCD_CLIENT_DEBUG sets,
// named "etcd-client"), except that its sampler is built at the first line the client logs
// (sampleLazily) rather than with the client: zap's sampler keeps a table of 7 x 4096 counters
// (448 KiB, resident for the life of the process), and a client that has nothing to say, as
// when etcd is healthy, never needs it. What it logs, and which repeats it drops, are the
// default logger's. Errors: the configuration does not build (an invalid encoder or output).
func etcdClientLogger() (*zap.Logger, error) {
	cfg := logutil.DefaultZapLoggerConfig
	cfg.Level = zap.NewAtomicLevelAt(clientv3.ClientLogLevel())
	sampling := cfg.Sampling
	cfg.Sampling = nil
	var opts []zap.Option
	if sampling != nil {
		opts = append(opts, zap.WrapCore(func(core zapcore.Core) zapcore.Core {
			return sampleLazily(core, func(core zapcore.Core) zapcore.Core {
				return zapcore.NewSamplerWithOptions(core, time.Second, sampling.Initial, sampling.Thereafter)
			})
		}))
	}
	lg, err := cfg.Build(opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot build the etcd client's logger: %w", err)
	}
	return lg.Named("etcd-client"), nil
}

// sampleLazily returns core as sample(core) would wrap it, a sampler, except that sample is
// called at the first entry core has enabled, and entries below core's level are dropped
// without it. The cores its With derives share the one sampler (as a sampler's do: one count
// per message), built on first use.
func sampleLazily(core zapcore.Core, sample func(zapcore.Core) zapcore.Core) zapcore.Core {
	s := &lazySampler{build: func() zapcore.Core { return sample(core) }}
	return &lazyCore{base: core, sampler: s.get}
}

// lazySampler builds a sampler once, when first asked for it.
type lazySampler struct {
	once  sync.Once
	build func() zapcore.Core
	core  zapcore.Core
}

// get returns the sampler, building it on the first call.
func (s *lazySampler) get() zapcore.Core {
	s.once.Do(func() { s.core = s.build() })
	return s.core
}

// lazyCore is a zapcore.Core that passes its enabled entries to a sampler built on the first
// one (sampler): base decides the level and syncs.
type lazyCore struct {
	base    zapcore.Core
	sampler func() zapcore.Core
}

// Enabled implements zapcore.LevelEnabler: base's level.
func (c *lazyCore) Enabled(l zapcore.Level) bool { return c.base.Enabled(l) }

// Level reports base's minimum enabled level (zapcore.LevelOf).
func (c *lazyCore) Level() zapcore.Level { return zapcore.LevelOf(c.base) }

// With returns a lazyCore with fields added to base and, once built, to the sampler.
func (c *lazyCore) With(fields []zapcore.Field) zapcore.Core {
	derived := &lazySampler{build: func() zapcore.Core { return c.sampler().With(fields) }}
	return &lazyCore{base: c.base.With(fields), sampler: derived.get}
}

// Check passes an entry base has enabled to the sampler, which adds its own core to ce
// unless it drops the entry.
func (c *lazyCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !c.base.Enabled(ent.Level) {
		return ce
	}
	return c.sampler().Check(ent, ce)
}

// Write writes the entry through the sampler (a logger writes what Check accepted to the
// core Check added, so this serves only callers that skip Check).
func (c *lazyCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	return c.sampler().Write(ent, fields)
}

// Sync flushes base, whose output the sampler shares.
func (c *lazyCore) Sync() error { return c.base.Sync() }

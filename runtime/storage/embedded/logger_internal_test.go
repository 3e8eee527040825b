package embedded

import (
	"runtime"
	"testing"
)

// allocated returns the bytes of heap memory f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMemberLoggerSamplesOnlyChattyLevels builds the member's logger at the levels a server
// uses: at "fatal" (the API server's) and "error" (the default) it has no sampler, whose
// counter table is 448 KiB of memory kept for the life of the process; at "info" it samples
// as etcd's own default logger does.
func TestMemberLoggerSamplesOnlyChattyLevels(t *testing.T) {
	const table = 7 * 4096 * 16 // zapcore's sampler counters: levels x counters x 16 bytes
	for _, level := range []string{"fatal", "error", "warn"} {
		var err error
		if n := allocated(func() { _, err = memberLogger(level) }); err != nil || n >= table/2 {
			t.Errorf("memberLogger(%q) allocated %d bytes (err %v), want less than %d: no sampler", level, n, err, table/2)
		}
	}
	for _, level := range []string{"info", "debug"} {
		var err error
		if n := allocated(func() { _, err = memberLogger(level) }); err != nil || n < table {
			t.Errorf("memberLogger(%q) allocated %d bytes (err %v), want at least %d: a sampler", level, n, err, table)
		}
	}
	if e, err := etcdConfig(Config{DataDir: t.TempDir()}); err != nil || e.ZapLoggerBuilder == nil {
		t.Errorf("etcdConfig left etcd to build its own (sampling) logger: err %v", err)
	}
	if _, err := memberLogger("loud"); err == nil {
		t.Error(`memberLogger("loud") succeeded, want an error`)
	}
}

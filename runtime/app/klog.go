package app

import (
	"context"
	"log/slog"
	"os"
	"sync/atomic"

	"k8s.io/klog/v2"
)

// klogTarget is the handler klog's lines (apimachinery's, client-go's, CEL's) go to: the
// handler of the server that started last in this process (one, outside tests), else a text
// handler on stderr.
var klogTarget atomic.Pointer[slog.Handler]

// klog's logger is a process global whose setter must not race with its readers (client-go
// reflectors read it on every watch): it is set once, before any goroutine, and each server
// then swaps klogTarget instead.
func init() {
	klog.SetSlogLogger(slog.New(klogForwarder{}))
}

// routeKlog sends klog's lines to h from now on.
func routeKlog(h slog.Handler) { klogTarget.Store(&h) }

// klogForwarder is a slog.Handler that hands each record to klogTarget, replaying the
// WithAttrs and WithGroup calls made on it.
type klogForwarder struct {
	with []func(slog.Handler) slog.Handler
}

func (f klogForwarder) target() slog.Handler {
	var h slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	if p := klogTarget.Load(); p != nil {
		h = *p
	}
	for _, w := range f.with {
		h = w(h)
	}
	return h
}

// Enabled reports whether the current target takes records at level.
func (f klogForwarder) Enabled(ctx context.Context, level slog.Level) bool {
	return f.target().Enabled(ctx, level)
}

// Handle passes r to the current target.
func (f klogForwarder) Handle(ctx context.Context, r slog.Record) error {
	return f.target().Handle(ctx, r)
}

// WithAttrs returns a forwarder adding attrs to every record.
func (f klogForwarder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return klogForwarder{with: append(f.with[:len(f.with):len(f.with)], func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })}
}

// WithGroup returns a forwarder putting later attributes in group name.
func (f klogForwarder) WithGroup(name string) slog.Handler {
	return klogForwarder{with: append(f.with[:len(f.with):len(f.with)], func(h slog.Handler) slog.Handler { return h.WithGroup(name) })}
}

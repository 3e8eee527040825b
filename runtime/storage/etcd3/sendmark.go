package etcd3

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
)

// TrackSends returns the gRPC dial option, for clientv3.Config.DialOptions, that lets a store
// on the client tell a write that never left it from one whose answer was lost: gRPC reports
// to it each time a call's request header is queued on a connection. A write that fails
// without being queued (etcd unreachable for the whole call) was not applied: an Unreachable
// error (503), which a client may retry. On a client dialed without it, as on the in-process
// client of an embedded member (no connection to lose), every write that fails without an
// answer is sent again to learn its outcome and otherwise reported as possibly applied
// (Timeout with Unknown set).
func TrackSends() grpc.DialOption { return grpc.WithStatsHandler(sendTracker{}) }

// sendMark records, for one write, whether TrackSends' handler saw its calls (tracked) and
// whether a request header of one was queued on a connection (queued).
type sendMark struct{ tracked, queued atomic.Bool }

type sendMarkKey struct{}

// withSendMark returns ctx carrying a new sendMark for the calls made with it.
func withSendMark(ctx context.Context) (context.Context, *sendMark) {
	m := &sendMark{}
	return context.WithValue(ctx, sendMarkKey{}, m), m
}

// neverLeft reports whether the calls were tracked and none was queued on a connection:
// etcd cannot have received the write.
func (m *sendMark) neverLeft() bool { return m.tracked.Load() && !m.queued.Load() }

// sendTracker is TrackSends' stats.Handler: it marks the sendMark of a call's context.
type sendTracker struct{}

// TagRPC marks the call's sendMark, if any, as tracked: gRPC calls it for each attempt
// before it picks a connection.
func (sendTracker) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	if m, ok := ctx.Value(sendMarkKey{}).(*sendMark); ok {
		m.tracked.Store(true)
	}
	return ctx
}

// HandleRPC marks the call's sendMark, if any, as queued once its request header is queued
// on a connection (stats.OutHeader).
func (sendTracker) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.OutHeader); !ok {
		return
	}
	if m, ok := ctx.Value(sendMarkKey{}).(*sendMark); ok {
		m.queued.Store(true)
	}
}

// TagConn returns ctx: connections are not tracked.
func (sendTracker) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

// HandleConn does nothing: connections are not tracked.
func (sendTracker) HandleConn(context.Context, stats.ConnStats) {}

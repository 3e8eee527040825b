package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestWatchFanoutSharesConnections: over HTTPS the fan-out's watchers share HTTP/2
// connections, WatchersPerConnection to each (10,000 watchers need no 10,000 connections),
// and every event still reaches every watcher; the writer's latencies are reported.
func TestWatchFanoutSharesConnections(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(NewFloorServer([]byte(`{}`)))
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tlsConfig := srv.Client().Transport.(*http.Transport).TLSClientConfig
	tmpl, err := NewObjectTemplate(512)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watchers := 2*WatchersPerConnection + 1
	sum, err := RunWatchFanout(ctx, WatchConfig{ServerURL: srv.URL, TLS: tlsConfig, Template: tmpl, Watchers: watchers, Rate: 20,
		Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Expected != watchers*4 || sum.Lost() != 0 {
		t.Errorf("delivered %d of %d events, want all of %d", sum.Delivered, sum.Expected, watchers*4)
	}
	if sum.Connections != 3 {
		t.Errorf("the watchers used %d connections, want 3", sum.Connections)
	}
	// The watchers' 3 and the writer's.
	if n := conns.Load(); n != 4 {
		t.Errorf("the server saw %d connections, want 4", n)
	}
	if sum.WriterP99 <= 0 || sum.WriterP50 > sum.WriterP99 {
		t.Errorf("writer p50 %s, p99 %s", sum.WriterP50, sum.WriterP99)
	}

	// No watcher: the writer alone.
	sum, err = RunWatchFanout(ctx, WatchConfig{ServerURL: srv.URL, TLS: tlsConfig, Template: tmpl, Rate: 20, Duration: 200 * time.Millisecond})
	if err != nil || sum.Writes != 4 || sum.Expected != 0 || sum.WriterP99 <= 0 {
		t.Errorf("the writer alone: %+v, %v", sum, err)
	}
}

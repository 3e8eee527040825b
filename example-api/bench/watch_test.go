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
	// 4 writes at 20/s take 4 ticks: at most the asked rate (each write waits for its tick).
	if r := sum.WriteRate(); r <= 0 || r > 20.5 {
		t.Errorf("achieved %.2f writes/s over %s; want (0, 20]", r, sum.Writing)
	}

	// No watcher: the writer alone.
	sum, err = RunWatchFanout(ctx, WatchConfig{ServerURL: srv.URL, TLS: tlsConfig, Template: tmpl, Rate: 20, Duration: 200 * time.Millisecond})
	if err != nil || sum.Writes != 4 || sum.Expected != 0 || sum.WriterP99 <= 0 {
		t.Errorf("the writer alone: %+v, %v", sum, err)
	}
}

// TestWatchFanoutCountsTerminated: a watch the server ends early (as kube's cacher ends a
// watcher that falls behind) is no error of the benchmark: its events count as lost.
func TestWatchFanoutCountsTerminated(t *testing.T) {
	t.Parallel()
	floor := NewFloorServer([]byte(`{}`))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			w.WriteHeader(http.StatusOK) // and end the watch at once
			return
		}
		floor.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	tmpl, err := NewObjectTemplate(512)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err := RunWatchFanout(ctx, WatchConfig{ServerURL: srv.URL, Template: tmpl, Watchers: 2, Rate: 20, Duration: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Terminated != 2 || sum.Expected != 6 || sum.Lost() != 6 {
		t.Errorf("terminated %d, lost %d of %d; want 2 watchers terminated, all 6 events lost", sum.Terminated, sum.Lost(), sum.Expected)
	}
}

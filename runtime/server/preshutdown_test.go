package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestPreShutdownHooks checks that a delegate's pre-shutdown hook runs on shutdown after the
// post-start hooks' context ended and while the server still serves requests, and that
// Serve waits for it.
func TestPreShutdownHooks(t *testing.T) {
	tail := New(Config{Name: "tail"}, nil)
	hookCtx := make(chan context.Context, 1)
	if err := tail.AddPostStartHook("remember", func(ctx context.Context) error { hookCtx <- ctx; return nil }); err != nil {
		t.Fatal(err)
	}
	var base string
	ran := make(chan error, 1)
	if err := tail.AddPreShutdownHook("release", func() error {
		if (<-hookCtx).Err() == nil {
			ran <- errors.New("the post-start hooks' context had not ended")
			return nil
		}
		resp, err := http.Get(base + "/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = errors.New(resp.Status)
			}
		}
		ran <- err
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := tail.AddPreShutdownHook("release", func() error { return nil }); err == nil {
		t.Error("AddPreShutdownHook accepted a name twice")
	}
	p, err := New(Config{Name: "head"}, tail).PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base = "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	select {
	case <-p.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("not ready")
	}
	cancel()
	waitServed(t, done, 10*time.Second, "Serve did not return after cancel")
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("the pre-shutdown hook could not reach the server: %v", err)
		}
	default:
		t.Error("Serve returned before the pre-shutdown hook ran")
	}
}

package server

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"k8s.io/client-go/util/cert"
)

// TestHTTP2MaxStreams reads the SETTINGS frame a client gets on connecting over h2: 100
// concurrent streams by default, as kube-apiserver's secure serving with
// --http2-max-streams-per-connection=0, and the configured limit otherwise (1000, as
// k8s.io/apiserver's RecommendedOptions for aggregated servers), with kube's frame size.
func TestHTTP2MaxStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ configured, want uint32 }{{0, 100}, {1000, 1000}} {
		srv, err := newHTTPServer(http.NotFoundHandler(), int(tc.configured))
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewUnstartedServer(nil)
		ts.Config = srv
		ts.TLS = &tls.Config{NextProtos: []string{"h2"}}
		ts.StartTLS()
		t.Cleanup(ts.Close)
		conn, err := tls.Dial("tcp", ts.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
			t.Fatalf("negotiated %q, want h2", p)
		}
		if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
			t.Fatal(err)
		}
		f, err := http2.NewFramer(conn, conn).ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		settings, ok := f.(*http2.SettingsFrame)
		if !ok {
			t.Fatalf("first frame %T, want SETTINGS", f)
		}
		if v, ok := settings.Value(http2.SettingMaxConcurrentStreams); !ok || v != tc.want {
			t.Errorf("configured %d: SETTINGS_MAX_CONCURRENT_STREAMS %d (%v), want %d", tc.configured, v, ok, tc.want)
		}
		if v, ok := settings.Value(http2.SettingMaxFrameSize); !ok || v != http2FrameSize {
			t.Errorf("SETTINGS_MAX_FRAME_SIZE %d (%v), want %d", v, ok, http2FrameSize)
		}
	}
}

// TestShutdownEndsLateHTTP2Connection: an HTTP/2 connection whose TLS handshake ends just after
// shutdown began, and that never opens a stream, is told to go away and closed, so Serve
// returns long before its shutdown timeout. http.Server.Shutdown alone sends GOAWAY only to the
// connections registered when it starts (golang/go#81153) and waits out the timeout.
func TestShutdownEndsLateHTTP2Connection(t *testing.T) {
	t.Parallel()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("127.0.0.1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	// The handshake of the first connection waits inside GetCertificate until released.
	entered, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln = tls.NewListener(ln, &tls.Config{NextProtos: []string{"h2"}, GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		first.Do(func() { close(entered); <-release })
		return &pair, nil
	}})
	p, err := New(Config{Name: "late", ShutdownTimeout: 30 * time.Second}, nil).PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()

	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	client := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	handshake := make(chan error, 1)
	go func() { handshake <- client.Handshake() }()
	<-entered
	cancel()
	// Shutdown has begun once the listener refuses connections; give its one GOAWAY sweep
	// time to run before the held connection completes its handshake.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		_ = c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts connections 10s after the shutdown began")
		}
	}
	time.Sleep(200 * time.Millisecond)
	close(release)
	if err := <-handshake; err != nil {
		t.Fatalf("handshake: %v", err)
	}
	// The client preface and SETTINGS register the connection with the HTTP/2 server; no
	// request follows.
	if _, err := (&http2.Transport{}).NewClientConn(client); err != nil {
		t.Fatalf("HTTP/2 client connection: %v", err)
	}
	waitServed(t, served, 10*time.Second,
		"Serve still draining 10s after the shutdown began, with only an idle HTTP/2 connection open (its timeout is 30s)")
}

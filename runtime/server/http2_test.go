package server

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"golang.org/x/net/http2"
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

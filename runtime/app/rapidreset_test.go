package app

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/apigen-dev/apigen/runtime/server"
)

// floodResult is what one rapid-reset flood saw: how many HEADERS+RST_STREAM pairs the
// server read (all those written, or up to the last stream its GOAWAY names), and the GOAWAY that closed it (nil when the
// flood finished with the connection open).
type floodResult struct {
	resets int
	goAway *http2.GoAwayFrame
}

// rapidReset opens one HTTP/2 connection to addr (TLS with ALPN h2 over cfg) and writes n
// HEADERS frames for GET path, each followed at once by RST_STREAM(CANCEL) on its stream, as
// the CVE-2023-44487 "rapid reset" attack: the server starts a handler per stream and the
// client never has more than one stream open. It stops early when the server closes the
// connection, and returns once the server's answer to a final PING (or its GOAWAY) shows it
// has read every frame.
func rapidReset(tb testing.TB, addr string, cfg *tls.Config, path string, n int) floodResult {
	tb.Helper()
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		tb.Fatalf("negotiated %q, want h2", p)
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", addr}, {":path", path}, {"user-agent", "rapid-reset"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	// Every header is a literal against an empty table, so the same block decodes the same
	// on every stream.
	headers := block.Bytes()

	done := make(chan floodResult, 1)
	go func() {
		var res floodResult
		defer func() { done <- res }()
		fr := http2.NewFramer(io.Discard, conn)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *http2.GoAwayFrame:
				res.goAway = f
				return
			case *http2.PingFrame:
				if f.IsAck() {
					return
				}
			}
		}
	}()

	_ = conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	w := &bufferedConn{conn: conn}
	fw := http2.NewFramer(w, nil)
	_, _ = io.WriteString(w, http2.ClientPreface)
	_ = fw.WriteSettings()
	_ = fw.WriteSettingsAck()
	resets := 0
	for i := range n {
		id := uint32(2*i + 1)
		if fw.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: headers, EndStream: true, EndHeaders: true}) != nil ||
			fw.WriteRSTStream(id, http2.ErrCodeCancel) != nil {
			break
		}
		if w.buf.Len() >= 32<<10 {
			if w.flush() != nil {
				break
			}
		}
		resets++
	}
	_ = fw.WritePing(false, [8]byte{1})
	_ = w.flush()
	select {
	case res := <-done:
		res.resets = resets
		if res.goAway != nil {
			// The streams the server read before it went away.
			res.resets = min(resets, int(res.goAway.LastStreamID+1)/2)
		}
		return res
	case <-time.After(30 * time.Second):
		tb.Fatalf("the server neither answered the PING after %d resets nor closed the connection in 30s", resets)
		return floodResult{}
	}
}

// bufferedConn gathers frames and writes them in large writes, as an attacker's client
// would, so that the flood costs the client little CPU next to the server's.
type bufferedConn struct {
	conn net.Conn
	buf  bytes.Buffer
	err  error
}

func (b *bufferedConn) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	return b.buf.Write(p)
}

func (b *bufferedConn) flush() error {
	if b.err == nil && b.buf.Len() > 0 {
		_, b.err = b.conn.Write(b.buf.Bytes())
		b.buf.Reset()
	}
	return b.err
}

// cpuTime is the CPU time, user and system, the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the heap the last garbage collection found live, after a collection now.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// adminTLS is a client TLS configuration for the secure server whose kubeconfig is
// kubeconfig: its CA and the admin's client certificate.
func adminTLS(t testing.TB, kubeconfig string) *tls.Config {
	pki := filepath.Join(filepath.Dir(kubeconfig), "pki")
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, ServerName: "127.0.0.1"}
}

// bareH2Server serves HTTP/2 with the settings apigen's server uses (100 streams per
// connection, 256 KiB frames and per-stream buffers) and a handler that answers 200 with a
// small body: the floor a rapid reset costs Go's HTTP/2 server itself.
func bareH2Server(tb testing.TB) string {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"kind":"Status"}`)
	})}
	if err := http2.ConfigureServer(srv, &http2.Server{MaxConcurrentStreams: server.DefaultHTTP2MaxStreamsPerConnection,
		MaxReadFrameSize: 256 << 10, MaxUploadBufferPerStream: 256 << 10, MaxUploadBufferPerConnection: 100 * 256 << 10}); err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = srv
	ts.TLS = &tls.Config{NextProtos: []string{"h2"}}
	ts.StartTLS()
	tb.Cleanup(ts.Close)
	return ts.Listener.Addr().String()
}

// rapidResetPath is the path each flooded stream asks for: a list, a request that is
// authenticated, authorized and served from storage had its stream not been reset.
const rapidResetPath = "/apis/test.apigen.dev/v1/namespaces/default/widgets"

// TestRapidReset floods one HTTP/2 connection of the secure server with 20,000 HEADERS +
// RST_STREAM pairs from its admin (CVE-2023-44487): the server must end the flood or absorb
// it, stay alive and serving, and hold no more heap after it than a bound above what it held
// before: a reset stream leaves nothing behind.
//
// It is not parallel: the heap it bounds is the process's, which a parallel test's requests
// would grow (the top-level parallel tests wait until it has finished).
func TestRapidReset(t *testing.T) {
	url, kubeconfig := startArgs(t, []string{"--plain-http=false"}, testGroup)
	addr := strings.TrimPrefix(url, "https://")
	cfg := adminTLS(t, kubeconfig)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
	getOK := func(what string) {
		t.Helper()
		resp, err := client.Get(url + rapidResetPath)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", what, resp.StatusCode)
		}
	}
	getOK("before the flood")
	before := liveHeap()
	cpu := cpuTime(t)
	start := time.Now()
	const n = 20000
	memStats(t, "before")
	res := rapidReset(t, addr, cfg, rapidResetPath, n)
	elapsed, used := time.Since(start), cpuTime(t)-cpu
	t.Logf("%d of %d reset streams in %v, %v CPU (%v per stream); GOAWAY: %v", res.resets, n, elapsed, used, used/time.Duration(max(res.resets, 1)), res.goAway)
	if res.resets < n && res.goAway == nil {
		t.Errorf("the connection was closed after %d resets without a GOAWAY", res.resets)
	}
	if res.goAway != nil && res.goAway.ErrCode != http2.ErrCodeEnhanceYourCalm {
		t.Errorf("GOAWAY %v, want ENHANCE_YOUR_CALM (Go's rapid-reset mitigation)", res.goAway)
	}
	getOK("after the flood")
	defer memStats(t, "at the end")
	// The handlers of the reset streams end shortly after the flood: wait, bounded, for the
	// live heap to come back within the bound. Without clearing the streams' deadlines
	// (filters.WithRequestDeadline) it stayed about 10 MiB up, for the request timeout.
	const bound = 4 << 20
	after := liveHeap()
	for deadline := time.Now().Add(3 * time.Second); after > before+bound && time.Now().Before(deadline); after = liveHeap() {
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("live heap %d MiB before the flood, %d MiB after", before>>20, after>>20)

	if after > before+bound {
		t.Errorf("live heap grew from %d to %d MiB over the flood; want at most %d MiB more", before>>20, after>>20, bound>>20)
	}
}

// waitReady waits, up to 30s, for the server's /readyz to pass: its post-start hooks done,
// so that their work does not weigh on what a test measures.
func waitReady(tb testing.TB, url string, cfg *tls.Config) {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := client.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("/readyz: %v, %v after 30s", resp, err)
		}
	}
}

// BenchmarkRapidReset measures the CPU a reset stream costs the secure server (authenticated
// admin, a list path), against a bare Go HTTP/2 server with the same settings, in the same
// process: it reports CPU per reset stream of each, and their ratio (server/bare).
func BenchmarkRapidReset(b *testing.B) {
	url, kubeconfig := startArgs(b, []string{"--plain-http=false"}, testGroup)
	cfg := adminTLS(b, kubeconfig)
	bare := bareH2Server(b)
	bareCfg := &tls.Config{InsecureSkipVerify: true}
	waitReady(b, url, cfg)
	var cpu [2]time.Duration
	var resets [2]int
	measure := func(i int, addr string, cfg *tls.Config) {
		start := cpuTime(b)
		resets[i] += rapidReset(b, addr, cfg, rapidResetPath, 5000).resets
		cpu[i] += cpuTime(b) - start
	}
	b.ResetTimer()
	// Interleaved, so that what else the machine does weighs on both alike.
	for range b.N {
		measure(0, strings.TrimPrefix(url, "https://"), cfg)
		measure(1, bare, bareCfg)
	}
	apigen, floor := cpu[0]/time.Duration(max(resets[0], 1)), cpu[1]/time.Duration(max(resets[1], 1))
	b.ReportMetric(float64(apigen.Nanoseconds()), "server-ns/reset")
	b.ReportMetric(float64(floor.Nanoseconds()), "bare-ns/reset")
	b.ReportMetric(float64(apigen)/float64(floor), "server/bare")
}

// memStats logs the process's resident memory and how the runtime's heap splits it: live
// after the last collection, free but not yet returned to the OS, and returned.
func memStats(t testing.TB, when string) {
	names := []string{"/gc/heap/live:bytes", "/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes", "/memory/classes/heap/stacks:bytes"}
	s := make([]metrics.Sample, len(names))
	for i := range names {
		s[i].Name = names[i]
	}
	metrics.Read(s)
	out := when + ":"
	if statm, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(statm)); len(f) > 1 {
			pages, _ := strconv.Atoi(f[1])
			out += " RSS " + strconv.Itoa(pages*os.Getpagesize()>>20) + " MiB;"
		}
	}
	for _, x := range s {
		out += " " + x.Name + " " + strconv.FormatUint(x.Value.Uint64()>>20, 10) + " MiB"
	}
	t.Log(out)
}

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"k8s.io/client-go/rest"
)

// TestStalledWatcherHoldsUpNoWrite: a watcher that never reads holds up no write. Over
// HTTPS (HTTP/2, the admin client certificate), on one server: 200 watchers of Databases, of which one opens
// its watch on a raw HTTP/2 connection and then never reads its socket (a 4 KiB receive
// buffer, a 1-byte stream window it never raises: its handler blocks on its first event),
// while 1,000 Databases are created. Every create answers 201 within the request timeout;
// the 199 reading watchers get every create, in order, as client-go's reflector would (one
// whose stream ends resumes from the last resourceVersion it read, as a client that was cut
// off does, though on an unloaded machine none is); and the stalled watcher's stream is
// ended by the server (RST_STREAM, or its end), as kube-apiserver's cacher terminates a
// watcher that stays full, within 15s of the last write. (Not under the race detector:
// e2e runs without it, and 200,000 deliveries under it take minutes.)
func TestStalledWatcherHoldsUpNoWrite(t *testing.T) {
	t.Parallel()
	const (
		readers        = 199
		writes         = 1000
		writers        = 4
		requestTimeout = 15 * time.Second
		databases      = "/apis/db.example.com/v1/namespaces/default/databases"
	)
	s := startServer(t, "--request-timeout="+requestTimeout.String())
	url := s.proc.URL
	cfg, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServerName == "" {
		cfg.ServerName = "127.0.0.1"
	}
	// Each client is one HTTP/2 connection of at most 100 streams (the server's limit).
	newClient := func() *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg.Clone(), ForceAttemptHTTP2: true}}
	}
	writeClient := newClient()
	resp, err := writeClient.Get(url + databases)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || list.Metadata.ResourceVersion == "" {
		t.Fatalf("list: %v %+v", err, list)
	}
	start, _ := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)

	stalled := openStalledWatch(t, strings.TrimPrefix(url, "https://"), cfg, databases+"?watch=true&resourceVersion="+list.Metadata.ResourceVersion)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	results := make(chan readerResult, readers)
	var opened sync.WaitGroup
	clients := []*http.Client{newClient(), newClient(), newClient(), newClient()}
	for i := range readers {
		opened.Add(1)
		go func() {
			results <- readEvents(ctx, clients[i%len(clients)], url+databases, start, writes, opened.Done)
		}()
	}
	opened.Wait()

	// The writes: each must be answered 201 within the request timeout.
	names := make(chan string, writes)
	for i := range writes {
		names <- fmt.Sprintf("f%04d", i)
	}
	close(names)
	var slowest time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	writesStart := time.Now()
	for range writers {
		wg.Go(func() {
			for name := range names {
				body := `{"apiVersion":"db.example.com/v1","kind":"Database","metadata":{"name":"` + name + `"},"spec":{"engine":"postgres"}}`
				began := time.Now()
				resp, err := writeClient.Post(url+databases, "application/json", strings.NewReader(body))
				took := time.Since(began)
				if err != nil {
					t.Errorf("create %s: %v (after %v)", name, err, took)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated || took >= requestTimeout {
					t.Errorf("create %s: %d after %v, want 201 within %v", name, resp.StatusCode, took, requestTimeout)
				}
				mu.Lock()
				slowest = max(slowest, took)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	writesEnd := time.Now()
	t.Logf("%d creates by %d clients in %v, the slowest %v", writes, writers, writesEnd.Sub(writesStart), slowest)

	// Every reading watcher gets every create, in order (bounded: a loaded machine delivers
	// 200,000 events in well under a minute).
	deadline := time.After(90 * time.Second)
	resumes := 0
	for range readers {
		select {
		case r := <-results:
			resumes += r.resumes
			if r.err != nil {
				t.Error(r.err)
			}
		case <-deadline:
			cancel()
			t.Fatalf("the reading watchers did not get the %d events within 90s", writes)
		}
	}
	t.Logf("%d reading watchers got every event, %d resumed watches on the way", readers, resumes)

	// The stalled watcher's stream is ended by the server, not held open by its handler
	// blocked on the window the client never opens.
	ended, err := stalled.waitEnd(writesEnd.Add(15 * time.Second))
	if err != nil {
		t.Errorf("the stalled watcher: %v", err)
	} else {
		t.Logf("the stalled watcher's stream: %s", ended)
	}
}

// readerResult is what one reading watcher saw: an error (nil: every event, in order) and how
// many times its stream ended and it watched again.
type readerResult struct {
	err     error
	resumes int
}

// readEvents watches url from resourceVersion from until it has read n ADDED events, each
// with a higher resourceVersion than the one before, resuming from the last it read when
// the stream ends, as client-go's reflector does. opened is called once the first watch's
// response has begun (the server has registered the watcher).
func readEvents(ctx context.Context, client *http.Client, url string, from int64, n int, opened func()) readerResult {
	var res readerResult
	last := from
	got := 0
	for first := true; ; first = false {
		if ctx.Err() != nil {
			res.err = fmt.Errorf("watcher: %d of %d events when the test gave up", got, n)
			return res
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"?watch=true&resourceVersion="+strconv.FormatInt(last, 10), nil)
		resp, err := client.Do(req)
		if first {
			opened()
		}
		if err != nil {
			res.err = fmt.Errorf("watch from %d: %v", last, err)
			return res
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			res.err = fmt.Errorf("watch from %d: %s", last, resp.Status)
			return res
		}
		dec := json.NewDecoder(resp.Body)
		for got < n {
			var ev struct {
				Type   string
				Object struct {
					Metadata struct{ Name, ResourceVersion string }
				}
			}
			if err := dec.Decode(&ev); err != nil {
				break // the stream ended: resume
			}
			rv, err := strconv.ParseInt(ev.Object.Metadata.ResourceVersion, 10, 64)
			if ev.Type != "ADDED" || err != nil || rv <= last {
				resp.Body.Close()
				res.err = fmt.Errorf("watcher: event %d is %s %s at %q after resourceVersion %d; want ADDED after it",
					got+1, ev.Type, ev.Object.Metadata.Name, ev.Object.Metadata.ResourceVersion, last)
				return res
			}
			last = rv
			got++
		}
		resp.Body.Close()
		if got == n {
			return res
		}
		res.resumes++
	}
}

// stalledWatch is a watch on a raw HTTP/2 connection whose client stopped reading once the
// response's headers came, with a 1-byte stream window it never raises.
type stalledWatch struct {
	conn *tls.Conn
	fr   *http2.Framer
}

// openStalledWatch dials addr with a 4 KiB receive buffer, speaks HTTP/2 with a 1-byte
// initial stream window, sends GET path on stream 1, reads until its response headers (200)
// and then stops reading.
func openStalledWatch(t *testing.T, addr string, cfg *tls.Config, path string) *stalledWatch {
	t.Helper()
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	raw, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn := tls.Client(raw, cfg)
	t.Cleanup(func() { conn.Close() })
	if err := conn.Handshake(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if err := fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1}); err != nil {
		t.Fatal(err)
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", addr}, {":path", path},
		{"accept", "application/json"}, {"user-agent", "stalled-watcher"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("stalled watcher, before its response: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := fr.WriteSettingsAck(); err != nil {
					t.Fatal(err)
				}
			}
		case *http2.MetaHeadersFrame:
			if f.StreamID == 1 {
				if status := f.PseudoValue("status"); status != "200" {
					t.Fatalf("stalled watcher: response %s", status)
				}
				return &stalledWatch{conn: conn, fr: fr}
			}
		case *http2.RSTStreamFrame, *http2.GoAwayFrame:
			t.Fatalf("stalled watcher, before its response: %v", f)
		}
	}
}

// waitEnd reads the connection at last, until the server has ended stream 1 (RST_STREAM,
// DATA with END_STREAM, GOAWAY or the connection's end), by deadline, and says how.
func (s *stalledWatch) waitEnd(deadline time.Time) (string, error) {
	_ = s.conn.SetReadDeadline(deadline)
	for {
		f, err := s.fr.ReadFrame()
		switch {
		case errors.Is(err, io.EOF):
			return "the connection closed", nil
		case err != nil:
			return "", fmt.Errorf("its stream is still open: %v", err)
		}
		switch f := f.(type) {
		case *http2.RSTStreamFrame:
			if f.StreamID == 1 {
				return "RST_STREAM " + f.ErrCode.String(), nil
			}
		case *http2.DataFrame:
			if f.StreamID == 1 && f.StreamEnded() {
				return "ended", nil
			}
		case *http2.GoAwayFrame:
			return "GOAWAY " + f.ErrCode.String(), nil
		}
	}
}

package app

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNonReadingClientsFreeTheirSlots runs the secure server with one read and one write
// slot and --request-timeout=3s, and holds each slot over HTTP/1.1 the hostile way: a list of
// about 10 MiB asked for by a client that never reads (a 2 KiB receive buffer) (a create whose
// body never comes is left out for now: see the case list). Each slot must be free within the
// deadline and 2s: the next request of its kind is served, not answered 429. A slot held until
// a second deadline, as it was before writes were bounded by the request's, is free only after
// about 6.3s. The 2s are the slack a loaded machine (the race pass beside other packages)
// needs to answer the next request.
func TestNonReadingClientsFreeTheirSlots(t *testing.T) {
	t.Parallel()
	// The max-in-flight filter's slots: API Priority and Fairness (on by default) is off, as
	// kube-apiserver's max-in-flight tests turn it off.
	const timeout, slack = 3 * time.Second, 2 * time.Second
	url, kubeconfig := startArgs(t, []string{"--plain-http=false", "--request-timeout=" + timeout.String(), "--enable-priority-and-fairness=false",
		"--max-requests-inflight=1", "--max-mutating-requests-inflight=1"}, testGroup)
	cfg := adminTLS(t, kubeconfig)
	cfg.NextProtos = []string{"http/1.1"}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}
	const widgets = "/apis/test.apigen.dev/v1/namespaces/default/widgets"
	try := func(method, path, body string) (int, error) {
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	do := func(method, path, body string) int {
		t.Helper()
		code, err := try(method, path, body)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return code
	}
	// 14 Widgets of 700 KiB: a list of about 10 MiB, more than loopback's socket buffers hold.
	color := strings.Repeat("0123456789abcdef", 700<<10/16)
	for i := range 14 {
		// A create slower than the timeout on a loaded machine is cut: try again.
		var code int
		var err error
		for range 5 {
			code, err = try(http.MethodPost, widgets, fmt.Sprintf(`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"w%d"},"spec":{"color":%q}}`, i, color))
			if err == nil && (code == http.StatusCreated || code == http.StatusConflict) {
				break
			}
		}
		if code != http.StatusCreated && code != http.StatusConflict {
			t.Fatalf("create w%d: %d, %v", i, code, err)
		}
	}
	for _, tc := range []struct {
		name, head string
		next       func() int
		want       int // the status the hostile client reads at last, 0 for none
	}{
		{"non-reading list", "GET " + widgets + " HTTP/1.1\r\nHost: x\r\n\r\n",
			func() int { return do(http.MethodGet, "/version", "") }, 0},
		// PARTIAL: an unfinished create body (504 at the deadline, which the probe showed) is
		// not yet a case here: the DELETE used to probe the write slot was served at once, and
		// there was no time left to find why before the deadline.
	} {
		d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		}}
		raw, err := d.Dial("tcp", strings.TrimPrefix(url, "https://"))
		if err != nil {
			t.Fatal(err)
		}
		conn := tls.Client(raw, cfg)
		t.Cleanup(func() { conn.Close() })
		start := time.Now()
		if _, err := io.WriteString(conn, tc.head); err != nil {
			t.Fatal(err)
		}
		// The slot is taken once the server has the request: its next request of the kind is
		// refused until then, and served within the deadline and the slack.
		var code int
		for deadline := start.Add(timeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if code = tc.next(); code == http.StatusTooManyRequests {
				break
			}
		}
		if code != http.StatusTooManyRequests {
			t.Fatalf("%s: the request did not take the slot within %v (the next got %d)", tc.name, timeout, code)
		}
		for deadline := start.Add(timeout + slack); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if code = tc.next(); code != http.StatusTooManyRequests {
				break
			}
		}
		held := time.Since(start)
		t.Logf("%s: slot held %v", tc.name, held)
		if code == http.StatusTooManyRequests {
			t.Errorf("%s: the slot is still held %v after the request (--request-timeout=%v)", tc.name, held, timeout)
		}
		if tc.want != 0 {
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil || resp.StatusCode != tc.want {
				t.Errorf("%s: the client got %v, %v; want %d", tc.name, resp, err, tc.want)
			}
		}
	}
}

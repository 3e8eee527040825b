package filters

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// slowClientTimeout is the request timeout of the slow-client tests: short, so that they run
// in about a second; every wait on it is bounded generously for a loaded machine.
const slowClientTimeout = 300 * time.Millisecond

// slowServer serves a chain with one read and one write slot: POST reads its body, GET
// writes big bytes. Each handler reports, on done, the error that ended it.
func slowServer(t *testing.T, big int) (url string, done <-chan error) {
	t.Helper()
	ended := make(chan error, 16)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_, err := io.ReadAll(r.Body)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				w.WriteHeader(http.StatusGatewayTimeout)
			}
			ended <- err
			return
		}
		if r.URL.Query().Get("big") == "" {
			return
		}
		chunk := make([]byte, 64<<10)
		var err error
		for written := 0; written < big && err == nil; written += len(chunk) {
			_, err = w.Write(chunk)
		}
		ended <- err
	})
	h := BuildHandlerChain(api, ChainConfig{Log: slog.New(slog.DiscardHandler), RequestTimeout: slowClientTimeout,
		MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, ended
}

// waitEnded waits for a handler to end with an error, within a bound far above the timeout.
func waitEnded(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the handler still runs 10s after a request timeout of %v", what, slowClientTimeout)
		return nil
	}
}

// dialSlow opens a raw connection and sends a request's head.
func dialSlow(t *testing.T, url, head string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestSlowUploadFreesItsSlot: a client that sends its body too slowly holds the only write
// slot until the request's deadline, then gets 504 and the slot is free for the next writer.
func TestSlowUploadFreesItsSlot(t *testing.T) {
	url, done := slowServer(t, 0)
	conn := dialSlow(t, url, "POST /apis/g/v1/widgets HTTP/1.1\r\nHost: x\r\nContent-Length: 110\r\n\r\n{")
	start := time.Now()
	if err := waitEnded(t, done, "slow upload"); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the body read ended with %v, want the read deadline", err)
	}
	t.Logf("slow upload cut after %v", time.Since(start))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("slow uploader got %v, %v; want 504", resp, err)
	}
	post, err := http.Post(url+"/apis/g/v1/widgets", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	<-done
	if post.StatusCode != http.StatusOK {
		t.Errorf("the next writer got %d; the slot was not given back", post.StatusCode)
	}
}

// TestNonReadingClientFreesItsSlot: a client that does not read a large response holds the
// only read slot until the deadline and its grace, then the handler's writes fail and the
// slot is free for the next reader.
func TestNonReadingClientFreesItsSlot(t *testing.T) {
	url, done := slowServer(t, 256<<20)
	dialSlow(t, url, "GET /apis/g/v1/widgets?big=1 HTTP/1.1\r\nHost: x\r\n\r\n")
	start := time.Now()
	if err := waitEnded(t, done, "non-reading client"); err == nil {
		t.Fatal("the handler wrote 256 MiB to a client that reads nothing")
	}
	t.Logf("non-reading client cut after %v", time.Since(start))
	// The handler reports its end before it returns, and the chain gives the slot back after
	// that: the next reader may meet the slot still held for an instant, not for 2s.
	var code int
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		get, err := http.Get(url + "/apis/g/v1/widgets")
		if err != nil {
			t.Fatal(err)
		}
		get.Body.Close()
		if code = get.StatusCode; code != http.StatusTooManyRequests || time.Now().After(deadline) {
			break
		}
	}
	if code != http.StatusOK {
		t.Errorf("the next reader got %d 2s after the handler ended; the slot was not given back", code)
	}
}

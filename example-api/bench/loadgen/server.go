package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
	"github.com/apigen-dev/apigen/runtime/app"
)

// readyTimeout bounds the wait for the server's readiness line and /readyz.
const readyTimeout = time.Minute

// stopTimeout bounds the wait for the server to exit after SIGTERM, before SIGKILL.
const stopTimeout = 20 * time.Second

// servingLine matches the server's readiness line on stdout and captures its URL.
var servingLine = regexp.MustCompile(`serving on (http://[^ ]+)`)

// benchFlags are the server's flags in a benchmark: plain HTTP (--plain-http), as the raw
// etcd baseline has no TLS either, so the ratios compare the servers' own work.
func benchFlags(etcdServers []string) []string {
	return []string{"--plain-http", "--log-level", "warn", "--etcd-servers", strings.Join(etcdServers, ",")}
}

// apiServer is a running example-apiserver: a child process, or app.Run in this process.
type apiServer struct {
	url string
	// pid is the process whose memory is the server's: the child's, or this process's.
	pid  int
	stop func() error
}

// startServerProcess starts bin with a data directory in dir, on a free port, against
// etcdServers, and waits until it is ready. stop sends SIGTERM and waits (SIGKILL after
// stopTimeout).
func startServerProcess(ctx context.Context, bin, dir string, etcdServers []string) (*apiServer, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	p, err := serverproc.Start(ctx, bin, dir, benchFlags(etcdServers)...)
	if err != nil {
		return nil, err
	}
	return &apiServer{url: p.URL, pid: p.PID, stop: func() error { return p.Stop(stopTimeout) }}, nil
}

// startServerInProcess runs the server with app.Run in this process (for CPU profiles:
// the server has no pprof endpoint), with a data directory in dir, against etcdServers.
func startServerInProcess(ctx context.Context, dir string, etcdServers []string) (*apiServer, error) {
	runCtx, cancel := context.WithCancel(context.Background())
	stdout, stdoutW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		code := app.Run(runCtx, "example-apiserver", append([]string{"--data-dir", dir, "--secure-port", "0"}, benchFlags(etcdServers)...),
			stdoutW, os.Stderr, dbinstall.NewAPIGroupInfo)
		stdoutW.Close()
		exited <- code
	}()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			if code := <-exited; code != 0 {
				stopErr = fmt.Errorf("cannot stop the in-process server cleanly: exit code %d", code)
			}
		})
		return stopErr
	}
	url, err := waitServing(ctx, stdout)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("cannot start the in-process server: %w", err), stop())
	}
	return &apiServer{url: url, pid: os.Getpid(), stop: stop}, nil
}

// waitServing reads the server's stdout until the readiness line, keeps draining it in the
// background, and waits until /readyz answers 200. It gives up after readyTimeout.
func waitServing(ctx context.Context, stdout io.Reader) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		if !sent {
			close(found)
		}
	}()
	var url string
	select {
	case u, ok := <-found:
		if !ok {
			return "", errors.New("the server exited before it was ready")
		}
		url = u
	case <-ctx.Done():
		return "", fmt.Errorf("no readiness line: %w", ctx.Err())
	}
	for {
		if err := readyz(ctx, url); err == nil {
			return url, nil
		} else if ctx.Err() != nil {
			return "", fmt.Errorf("/readyz: %w", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// readyz asks url's /readyz once.
func readyz(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return nil
}

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

// servingLine matches the server's readiness line on stdout and captures its URL and, when
// it runs an embedded etcd, that member's client URL.
var servingLine = regexp.MustCompile(`serving on (http://[^ ]+) \(.*etcd: (?:embedded, .*, client URL (http://[^ )]+)|[^)]*)\)`)

// benchFlags are the server's flags in a benchmark: plain HTTP (--plain-http), as the raw
// etcd baseline has no TLS either, so the ratios compare the servers' own work;
// --etcd-servers when etcdServers is not empty (else the server runs its embedded etcd); and
// extra.
func benchFlags(etcdServers []string, extra ...string) []string {
	flags := []string{"--plain-http", "--log-level", "warn"}
	if len(etcdServers) > 0 {
		flags = append(flags, "--etcd-servers", strings.Join(etcdServers, ","))
	}
	return append(flags, extra...)
}

// apiServer is a running example-apiserver: a child process, or app.Run in this process.
type apiServer struct {
	url string
	// embeddedEtcd is the client URL of the server's embedded etcd member; "" when the
	// server uses an external etcd.
	embeddedEtcd string
	// pid is the process whose memory is the server's: the child's, or this process's.
	pid  int
	stop func() error
}

// startServerProcess starts bin with a data directory in dir, on a free port, against
// etcdServers (none: its embedded etcd), and waits until it is ready and has printed its
// readiness line, with the extra flags. stop sends SIGTERM and waits (SIGKILL after
// stopTimeout).
func startServerProcess(ctx context.Context, bin, dir string, etcdServers []string, extra ...string) (*apiServer, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	p, err := serverproc.Start(ctx, bin, dir, benchFlags(etcdServers, extra...)...)
	if err != nil {
		return nil, err
	}
	srv := &apiServer{url: p.URL, pid: p.PID, stop: func() error { return p.Stop(stopTimeout) }}
	// The server prints its readiness line right after the kubeconfig Start waited for.
	for {
		if m := servingLine.FindStringSubmatch(p.Output()); m != nil {
			srv.embeddedEtcd = m[2]
			return srv, nil
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(fmt.Errorf("example-apiserver printed no readiness line: %w\n%s", ctx.Err(), p.Output()), srv.stop())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// startServerInProcess runs the server with app.Run in this process (for -cpuprofile and
// -memprofile, which then cover server and clients in one profile), with a data directory
// in dir, against etcdServers (none: its embedded etcd).
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
	m, err := waitServing(ctx, stdout)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("cannot start the in-process server: %w", err), stop())
	}
	return &apiServer{url: m[1], embeddedEtcd: m[2], pid: os.Getpid(), stop: stop}, nil
}

// waitServing reads the server's stdout until the readiness line, keeps draining it in the
// background, and waits until /readyz answers 200. It returns servingLine's submatches and
// gives up after readyTimeout.
func waitServing(ctx context.Context, stdout io.Reader) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		if !sent {
			close(found)
		}
	}()
	var m []string
	select {
	case got, ok := <-found:
		if !ok {
			return nil, errors.New("the server exited before it was ready")
		}
		m = got
	case <-ctx.Done():
		return nil, fmt.Errorf("no readiness line: %w", ctx.Err())
	}
	for {
		if err := readyz(ctx, m[1]); err == nil {
			return m, nil
		} else if ctx.Err() != nil {
			return nil, fmt.Errorf("/readyz: %w", err)
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

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

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
var servingLine = regexp.MustCompile(`serving on (https?://[^ ]+) \([^;]*; etcd: (?:embedded, [^,]*, client URL (http://[^ )]+))?`)

// benchFlags are the server's flags in a benchmark: HTTPS when https (as kubectl and
// client-go reach a server), else plain HTTP (--plain-http, as the raw etcd baseline has no
// TLS either, so the ratios compare the servers' own work); --etcd-servers when etcdServers
// is not empty, else the server runs its embedded etcd, whose client URL loadgen reads the
// stored objects through (plain HTTP, asked for with --embedded-etcd-client-url, since by
// default it requires a client certificate); then extra.
func benchFlags(etcdServers []string, https bool, extra []string) []string {
	flags := []string{"--log-level", "warn"}
	if !https {
		flags = append(flags, "--plain-http")
	}
	if len(etcdServers) > 0 {
		flags = append(flags, "--etcd-servers", strings.Join(etcdServers, ","))
	} else {
		flags = append(flags, "--embedded-etcd-client-url", "http://127.0.0.1:0")
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
	// tls is the TLS configuration of its kubeconfig (CA, admin client certificate); nil for
	// plain HTTP.
	tls *tls.Config
}

// tlsOf returns the TLS configuration of cfg, a kubeconfig's, or nil for plain HTTP.
func tlsOf(cfg *rest.Config) (*tls.Config, error) {
	if !strings.HasPrefix(cfg.Host, "https://") {
		return nil, nil
	}
	t, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot read the TLS configuration of the server's kubeconfig: %w", err)
	}
	return t, nil
}

// startServerProcess starts bin with a data directory in dir, on a free port, against
// etcdServers (none: its embedded etcd), and waits until it is ready and has printed its
// readiness line. stop sends SIGTERM and waits (SIGKILL after stopTimeout).
func startServerProcess(ctx context.Context, bin, dir string, etcdServers []string, https bool, extra []string) (*apiServer, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	p, err := serverproc.Start(ctx, bin, dir, benchFlags(etcdServers, https, extra)...)
	if err != nil {
		return nil, err
	}
	srv := &apiServer{url: p.URL, pid: p.PID, stop: func() error { return p.Stop(stopTimeout) }}
	if srv.tls, err = tlsOf(p.Config); err != nil {
		return nil, errors.Join(err, srv.stop())
	}
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
func startServerInProcess(ctx context.Context, dir string, etcdServers []string, https bool, extra []string) (*apiServer, error) {
	runCtx, cancel := context.WithCancel(context.Background())
	stdout, stdoutW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		code := app.Run(runCtx, "example-apiserver", append([]string{"--data-dir", dir, "--secure-port", "0"}, benchFlags(etcdServers, https, extra)...),
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
	m, tlsConfig, err := waitServing(ctx, stdout, filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("cannot start the in-process server: %w", err), stop())
	}
	return &apiServer{url: m[1], embeddedEtcd: m[2], pid: os.Getpid(), stop: stop, tls: tlsConfig}, nil
}

// waitServing reads the server's stdout until the readiness line, keeps draining it in the
// background, and waits until /readyz answers 200 (over HTTPS with kubeconfig's TLS
// configuration, which the server wrote before that line). It returns servingLine's
// submatches and the TLS configuration (nil for plain HTTP), and gives up after
// readyTimeout.
func waitServing(ctx context.Context, stdout io.Reader, kubeconfig string) ([]string, *tls.Config, error) {
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
			return nil, nil, errors.New("the server exited before it was ready")
		}
		m = got
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("no readiness line: %w", ctx.Err())
	}
	var tlsConfig *tls.Config
	if strings.HasPrefix(m[1], "https://") {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot load the server's kubeconfig: %w", err)
		}
		if tlsConfig, err = tlsOf(cfg); err != nil {
			return nil, nil, err
		}
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	defer client.CloseIdleConnections()
	for {
		if err := readyz(ctx, client, m[1]); err == nil {
			return m, tlsConfig, nil
		} else if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("/readyz: %w", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// readyz asks url's /readyz once.
func readyz(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
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

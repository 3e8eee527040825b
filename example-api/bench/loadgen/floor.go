package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/certs"
)

// serveFloorArg, as loadgen's first argument, makes it the floor server instead of the
// benchmark (see startFloor); the second argument is the floor's directory.
const serveFloorArg = "-serve-floor"

// floorListening prefixes the line the floor server prints once it listens.
const floorListening = "floor: listening on "

// Files of the floor's directory.
const (
	floorBody  = "body.json" // what every GET is answered with
	floorPKI   = "pki"       // certs.EnsureSelfSigned's bundle; absent: plain HTTP
	floorStart = 10 * time.Second
)

// floor is a running floor server: a process of loadgen serving bench.FloorServer.
type floor struct {
	url string
	tls *tls.Config // nil for plain HTTP
	cmd *exec.Cmd
}

// startFloor starts the floor server, a second loadgen process on 127.0.0.1 serving
// bench.FloorServer with body as the object its gets answer, over HTTPS (a self-signed CA, serving and admin certificates as the example
// server's, client certificates required and verified, HTTP/2) or plain HTTP, with its data
// in dir. It runs in its own process, as the server does, so that its CPU time is its own and
// it does not share loadgen's Go runtime.
func startFloor(ctx context.Context, dir string, body []byte, https bool, cpus []int) (*floor, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, floorBody), body, 0o600); err != nil {
		return nil, err
	}
	f := &floor{}
	if https {
		b, err := certs.EnsureSelfSigned(filepath.Join(dir, floorPKI), nil, []net.IP{net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, fmt.Errorf("cannot make the floor's certificates: %w", err)
		}
		admin, err := tls.LoadX509KeyPair(b.CertFile(certs.AdminName), b.KeyFile(certs.AdminName))
		if err != nil {
			return nil, err
		}
		f.tls = &tls.Config{RootCAs: b.CAPool, Certificates: []tls.Certificate{admin}}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f.cmd = exec.CommandContext(ctx, self, serveFloorArg, dir)
	f.cmd.Stderr = os.Stderr
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := withCPUs(cpus, f.cmd.Start); err != nil {
		return nil, fmt.Errorf("cannot start the floor server: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if url, ok := strings.CutPrefix(sc.Text(), floorListening); ok {
				lines <- url
			}
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case url, ok := <-lines:
		if ok {
			f.url = url
			return f, nil
		}
	case <-time.After(floorStart):
	}
	return nil, errors.Join(fmt.Errorf("the floor server did not listen within %s", floorStart), f.stop())
}

// stop ends the floor server and waits for it.
func (f *floor) stop() error {
	_ = f.cmd.Process.Kill()
	err := f.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) { // killed, as asked
		return nil
	}
	return err
}

// serveFloor is the floor server's process: it serves bench.FloorServer with the body in
// dir, over HTTPS when dir holds a certificate bundle, until ctx ends.
func serveFloor(ctx context.Context, dir string, stdout io.Writer) error {
	body, err := os.ReadFile(filepath.Join(dir, floorBody))
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: bench.NewFloorServer(body), ReadHeaderTimeout: time.Minute}
	scheme := "http"
	pki := filepath.Join(dir, floorPKI)
	if _, err := os.Stat(pki); err == nil {
		b, err := certs.EnsureSelfSigned(pki, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return err
		}
		serving, err := tls.LoadX509KeyPair(b.CertFile(certs.ServingName), b.KeyFile(certs.ServingName))
		if err != nil {
			return err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{serving}, ClientCAs: b.CAPool,
			ClientAuth: tls.RequireAndVerifyClientCert, NextProtos: []string{"h2", "http/1.1"}}
		l = tls.NewListener(l, srv.TLSConfig)
		scheme = "https"
	}
	fmt.Fprintf(stdout, "%s%s://%s\n", floorListening, scheme, l.Addr())
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// measureFloor starts the floor server (startFloor) with the object the server answers the
// get row with, and measures and prints, beside the targets: the get row's floor at the most
// clients, against that row's raw etcd get (in rows), when get is measured; then each watch
// fan-out's floor (RunWatchFanout against the floor server). A target beyond a floor is out
// of reach for any Go server of the API on this machine.
func measureFloor(ctx context.Context, o *options, dir string, s *bench.Scenario, rows []bench.Row, out io.Writer, sets *bench.CPUSets) error {
	body, err := s.ServedObject(ctx)
	if err != nil {
		return err
	}
	var cpus []int // the floor is a server: on the server's CPUs when pinned
	if sets != nil {
		cpus = sets.Server
	}
	f, err := startFloor(ctx, dir, body, o.https, cpus)
	if err != nil {
		return err
	}
	defer func() { _ = f.stop() }()
	floorCPU := func() (time.Duration, error) { return bench.ReadCPUTime(f.cmd.Process.Pid) }
	clients := slices.Max(o.clients)
	if i := slices.IndexFunc(rows, func(r bench.Row) bool { return r.Op == bench.OpGet && r.Clients == clients }); i >= 0 {
		if err := floorGet(ctx, o, s, f, len(body), rows[i], floorCPU, out); err != nil {
			return err
		}
	}
	for _, t := range o.watches {
		if t.Watchers == 0 {
			continue // the writer alone: nothing fanned out
		}
		sum, err := bench.RunWatchFanout(ctx, bench.WatchConfig{ServerURL: f.url, TLS: f.tls, Template: s.Template(),
			Watchers: t.Watchers, Rate: t.Rate, Duration: fanoutDuration(o, t), CPUTime: floorCPU})
		if err != nil {
			return fmt.Errorf("floor watch fan-out of %d watchers at %v writes/s: %w", t.Watchers, t.Rate, err)
		}
		fmt.Fprintf(out, "floor watch %4d watchers at %3.0f writes/s: the floor server fanning each PUT's body out as an event (%s): "+
			"%d/%d events delivered, p50 %s, p99 %s (the target is <= %s); floor CPU/event %s\n",
			t.Watchers, t.Rate, transportName(o), sum.Delivered, sum.Expected, sum.P50.Round(time.Microsecond),
			sum.P99.Round(time.Microsecond), t.MaxP99, sum.CPUPerEvent().Round(100*time.Nanosecond))
	}
	return nil
}

// floorGet measures and prints the get row's floor at the row's clients, beside the row's
// raw etcd get and the get target.
func floorGet(ctx context.Context, o *options, s *bench.Scenario, f *floor, bodyLen int, row bench.Row,
	floorCPU func() (time.Duration, error), out io.Writer) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	op, err := s.FloorOp(runCtx, f.url, f.tls)
	if err != nil {
		return err
	}
	sum, err := bench.Run(runCtx, bench.Config{Clients: row.Clients, Warmup: o.warmup, Measure: o.measure, CPUTime: floorCPU}, op)
	if err != nil {
		return err
	}
	if sum.Errors > 0 {
		return fmt.Errorf("floor gets failed: %d, the first: %w", sum.Errors, sum.FirstError)
	}
	var cpu time.Duration
	if sum.Ops > 0 {
		cpu = sum.CPU / time.Duration(sum.Ops)
	}
	fmt.Fprintf(out, "floor get at %d clients: a Go net/http server answering each GET with the object's %d bytes, nothing else (%s): "+
		"%.0f ops/s, p99 %s, floor CPU/op %s; floor/raw %.1f%% of the get row's raw etcd (%.0f ops/s) (the get target is >= %.0f%%)\n",
		row.Clients, bodyLen, transportName(o), sum.OpsPerSecond(), sum.P99.Round(time.Microsecond), cpu.Round(time.Microsecond),
		100*sum.OpsPerSecond()/row.Raw.OpsPerSecond(), row.Raw.OpsPerSecond(), 100*getTarget())
	return nil
}

// transportName says how the floor's clients reach it.
func transportName(o *options) string {
	if o.https {
		return "HTTPS, client certificate, HTTP/2, gzip accepted"
	}
	return "plain HTTP/1.1"
}

// getTarget is the get row's target ratio of raw etcd (bench.IssueTargets).
func getTarget() float64 {
	for _, t := range bench.IssueTargets {
		if t.Op == bench.OpGet {
			return t.MinRatio
		}
	}
	return 0
}

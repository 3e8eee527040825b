package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// The values of -pin.
const (
	pinAuto = "auto" // on when the machine has bench.MinPinnedCPUs CPUs or more
	pinOn   = "on"
	pinOff  = "off"
)

// serveEtcdArg, as loadgen's first argument, makes it an etcd member instead of the
// benchmark (startEtcdProcess): the second argument is its data directory, a third
// "-unsafe-no-fsync" turns fsync off.
const serveEtcdArg = "-serve-etcd"

// etcdListening prefixes the line the etcd process prints once it serves: its client URLs,
// comma-separated.
const etcdListening = "etcd: serving on "

// etcdStart bounds the wait for the etcd process's line.
const etcdStart = time.Minute

// pinning resolves -pin against the machine and the topology: the CPU sets, or nil when
// the run is not pinned, and a line saying which and why.
func pinning(o *options) (*bench.CPUSets, string, error) {
	cpus, err := bench.AllowedCPUs()
	if err != nil {
		return nil, "", err
	}
	why := ""
	switch {
	case o.etcd == etcdCluster:
		why = "-etcd cluster runs its 3 members in loadgen"
	case o.inProcess:
		why = "-in-process runs the server in loadgen"
	case len(cpus) < bench.MinPinnedCPUs:
		why = fmt.Sprintf("%d CPUs, fewer than %d", len(cpus), bench.MinPinnedCPUs)
	}
	switch o.pin {
	case pinOff:
		return nil, "pinned mode off (-pin off): every process on all CPUs", nil
	case pinOn:
		if why != "" {
			return nil, "", fmt.Errorf("-pin on: cannot pin: %s", why)
		}
	case pinAuto:
		if why != "" {
			return nil, "pinned mode off (-pin auto: " + why + "): every process on all CPUs", nil
		}
	}
	sets, err := bench.SplitCPUs(cpus)
	if err != nil {
		return nil, "", err
	}
	return &sets, fmt.Sprintf("pinned mode on (-pin %s, %d CPUs): %s; GOMAXPROCS of each the size of its set", o.pin, len(cpus), sets), nil
}

// serverCPUs returns the CPUs apigen's server runs on: sets.EmbeddedServer in the embedded
// topology, sets.Server otherwise; nil when not pinned.
func serverCPUs(o *options, sets *bench.CPUSets) []int {
	switch {
	case sets == nil:
		return nil
	case o.etcd == etcdEmbedded:
		return sets.EmbeddedServer
	}
	return sets.Server
}

// withCPUs runs start on cpus (bench.WithCPUs), or as it is when cpus is nil.
func withCPUs(cpus []int, start func() error) error {
	if cpus == nil {
		return start()
	}
	return bench.WithCPUs(cpus, start)
}

// etcdProcess is loadgen's etcd member run as a process of its own (pinned mode), so that
// it runs on its CPU set.
type etcdProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startEtcdProcess starts loadgen as an etcd member (serveEtcdArg) with its data in dir, on
// CPUs cpus with GOMAXPROCS their number, and returns its client URLs once it serves.
func startEtcdProcess(ctx context.Context, dir string, noFsync bool, cpus []int) ([]string, *etcdProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	args := []string{serveEtcdArg, dir}
	if noFsync {
		args = append(args, "-unsafe-no-fsync")
	}
	p := &etcdProcess{cmd: exec.Command(self, args...), exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(len(cpus)))
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // killed with loadgen
	p.cmd.Stderr = os.Stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := bench.WithCPUs(cpus, p.cmd.Start); err != nil {
		return nil, nil, fmt.Errorf("cannot start the etcd process: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if urls, ok := strings.CutPrefix(sc.Text(), etcdListening); ok {
				lines <- urls
			}
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	select {
	case urls, ok := <-lines:
		if ok {
			return strings.Split(urls, ","), p, nil
		}
		return nil, nil, errors.Join(errors.New("the etcd process exited before it served"), p.stop())
	case <-ctx.Done():
		return nil, nil, errors.Join(ctx.Err(), p.stop())
	case <-time.After(etcdStart):
		return nil, nil, errors.Join(fmt.Errorf("the etcd process did not serve within %s", etcdStart), p.stop())
	}
}

// stop ends the etcd process (SIGTERM, then SIGKILL after stopTimeout) and waits for it.
func (p *etcdProcess) stop() error {
	return stopProcess(p.cmd, p.exited)
}

// serveEtcd is the etcd process: one embedded member with its data in dir, serving until
// ctx ends (SIGTERM).
func serveEtcd(ctx context.Context, args []string, stdout io.Writer) error {
	cfg := embedded.Config{DataDir: args[0], LogLevel: "fatal"}
	if len(args) > 1 {
		if args[1] != "-unsafe-no-fsync" {
			return fmt.Errorf("unexpected argument %q", args[1])
		}
		cfg.UnsafeNoFsync = true
	}
	etcd, err := embedded.Start(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s%s\n", etcdListening, strings.Join(etcd.Endpoints(), ","))
	<-ctx.Done()
	return etcd.Close()
}

package bench

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// MinPinnedCPUs is the fewest CPUs pinned mode splits (loadgen's -pin auto turns it on from
// there): 4 for etcd, 4 for the server and at least 4 for the load generator.
const MinPinnedCPUs = 12

// The pinned mode's sets, as the 16-core figures were taken: etcd on pinnedEtcdCPUs, the server on
// pinnedServerCPUs (twice that when it embeds its etcd), the load generator on the rest.
const (
	pinnedEtcdCPUs   = 4
	pinnedServerCPUs = 4
)

// CPUSets places the benchmark's processes on disjoint sets of CPUs (pinned mode): Etcd runs
// the etcd the anchor and the raw side share (and an external server's), Server the server
// on that etcd (the anchor, apigen with -etcd external, the floor server), EmbeddedServer
// apigen with its embedded etcd (Etcd and Server together: the raw side's etcd and the
// anchor sit idle while apigen is measured), and Loadgen the load generator. Each is a list
// of CPU numbers, in the order of the machine's CPUs.
type CPUSets struct {
	Etcd, Server, EmbeddedServer, Loadgen []int
}

// SplitCPUs splits cpus (the CPUs the load generator may use, as sched_getaffinity lists
// them) into CPUSets: the first 4 for etcd, the next 4 for the server, the first 8 for a
// server with its embedded etcd, the rest for the load generator; 16 CPUs give etcd 0-3,
// server 4-7 (embedded 0-7), load generator 8-15. Errors: fewer than MinPinnedCPUs.
func SplitCPUs(cpus []int) (CPUSets, error) {
	if len(cpus) < MinPinnedCPUs {
		return CPUSets{}, fmt.Errorf("cannot pin: %d CPUs, pinned mode needs at least %d", len(cpus), MinPinnedCPUs)
	}
	cpus = append([]int(nil), cpus...)
	server := pinnedEtcdCPUs + pinnedServerCPUs
	return CPUSets{
		Etcd:           cpus[:pinnedEtcdCPUs:pinnedEtcdCPUs],
		Server:         cpus[pinnedEtcdCPUs:server:server],
		EmbeddedServer: cpus[:server:server],
		Loadgen:        cpus[server:],
	}, nil
}

// String formats the sets for the benchmark's header, e.g. "etcd 0-3, server 4-7 (with its
// embedded etcd 0-7), load generator 8-15".
func (s CPUSets) String() string {
	return fmt.Sprintf("etcd %s, server %s (with its embedded etcd %s), load generator %s",
		FormatCPUList(s.Etcd), FormatCPUList(s.Server), FormatCPUList(s.EmbeddedServer), FormatCPUList(s.Loadgen))
}

// FormatCPUList formats cpus as taskset -c and /proc's Cpus_allowed_list do, ranges
// collapsed: [0 1 2 3 8] is "0-3,8".
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// AllowedCPUs returns the CPUs the calling thread may run on (sched_getaffinity), in order.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("cannot read the CPU affinity: %w", err)
	}
	return cpuList(&set), nil
}

// maxCPUs is CPU_SETSIZE, the CPUs a unix.CPUSet holds.
const maxCPUs = 1024

// cpuList returns the CPUs in set, in order.
func cpuList(set *unix.CPUSet) []int {
	var out []int
	for c := range maxCPUs {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// cpuSet returns the unix.CPUSet of cpus.
func cpuSet(cpus []int) *unix.CPUSet {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return &set
}

// WithCPUs runs start (which starts child processes, e.g. exec.Cmd.Start) on an OS thread
// whose CPU affinity is cpus for the time of the call, so that the children start with it
// (a forked process inherits the forking thread's affinity, and os/exec forks on the calling
// thread) and with GOMAXPROCS the set's size if they are Go programs (the runtime sizes
// GOMAXPROCS from the affinity it starts with). The thread is locked to the goroutine
// meanwhile (the Go runtime then creates new threads from its template thread, not from this
// one, so none inherits cpus) and gets its own affinity back afterwards. Errors: start's, or
// the affinity cannot be set or restored.
func WithCPUs(cpus []int, start func() error) error {
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("cannot read the CPU affinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, cpuSet(cpus)); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("cannot pin to CPUs %s: %w", FormatCPUList(cpus), err)
	}
	err := start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil {
		// The thread stays locked, and ends with the goroutine: it never runs others.
		return errors.Join(err, fmt.Errorf("cannot restore the CPU affinity: %w", rerr))
	}
	runtime.UnlockOSThread()
	return err
}

// PinProcess pins every thread of the calling process to cpus (threads created later
// inherit it from their creator) and sets GOMAXPROCS to the set's size: the load generator
// pinning itself. Errors: a thread's affinity cannot be set (a thread that exited meanwhile
// is skipped).
func PinProcess(cpus []int) error {
	set := cpuSet(cpus)
	done := map[int]bool{}
	for {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("cannot list the process's threads: %w", err)
		}
		more := false
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("cannot pin thread %d to CPUs %s: %w", tid, FormatCPUList(cpus), err)
			}
			done[tid], more = true, true
		}
		if !more { // a pass found no new thread: every thread is pinned
			break
		}
	}
	runtime.GOMAXPROCS(len(cpus))
	return nil
}

// ProcessCPUs returns the CPUs process pid's main thread may run on, from the
// Cpus_allowed_list line of /proc/<pid>/status.
func ProcessCPUs(pid int) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", fmt.Errorf("cannot read the CPUs of process %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("cannot read the CPUs of process %d: no Cpus_allowed_list", pid)
}

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// MemStatus is a process's resident memory as /proc/<pid>/status reports it, in bytes.
type MemStatus struct {
	// RSS is VmRSS, the resident set size now.
	RSS uint64
	// HWM is VmHWM, the peak resident set size the kernel saw since the process started.
	HWM uint64
	// Anon and File split RSS as RssAnon and RssFile do: anonymous memory (the Go heap,
	// stacks) and file-backed pages mapped in (the executable's text and data, an embedded
	// etcd's bbolt file). Both are 0 on a kernel older than 4.5, which lacks the lines.
	Anon, File uint64
}

// ReadMemStatus reads VmRSS, VmHWM, RssAnon and RssFile of process pid from /proc/<pid>/status (Linux only).
func ReadMemStatus(pid int) (MemStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return MemStatus{}, fmt.Errorf("cannot read memory status of process %d: %w", pid, err)
	}
	m, err := parseMemStatus(data)
	if err != nil {
		return MemStatus{}, fmt.Errorf("cannot parse memory status of process %d: %w", pid, err)
	}
	return m, nil
}

// parseMemStatus extracts VmRSS, VmHWM, RssAnon and RssFile ("VmRSS:\t  12345 kB" lines)
// from the text of a /proc/<pid>/status file. It fails when VmRSS or VmHWM is missing, or any
// of the four is malformed.
func parseMemStatus(data []byte) (MemStatus, error) {
	var m MemStatus
	var seenRSS, seenHWM bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *uint64
		switch string(name) {
		case "VmRSS":
			dst, seenRSS = &m.RSS, true
		case "VmHWM":
			dst, seenHWM = &m.HWM, true
		case "RssAnon":
			dst = &m.Anon
		case "RssFile":
			dst = &m.File
		default:
			continue
		}
		fields := bytes.Fields(value)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return MemStatus{}, fmt.Errorf("unexpected %s line %q", name, sc.Bytes())
		}
		kb, err := strconv.ParseUint(string(fields[0]), 10, 64)
		if err != nil {
			return MemStatus{}, fmt.Errorf("unexpected %s line %q: %w", name, sc.Bytes(), err)
		}
		*dst = kb * 1024
	}
	if !seenRSS || !seenHWM {
		return MemStatus{}, fmt.Errorf("VmRSS or VmHWM missing")
	}
	return m, nil
}

// MemSampler samples a process's MemStatus (or the sum of several processes', see
// StartMemSamplerSum) at a fixed interval in the background and keeps the peaks: over its
// whole life, and since the last call of TakePeak. Its methods are safe for concurrent use.
type MemSampler struct {
	pids     []int
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	mu       sync.Mutex
	samples  int
	peak     uint64 // highest VmRSS sampled
	peakHere uint64 // highest VmRSS sampled since the last TakePeak
	last     MemStatus
	err      error // the first sampling error
}

// StartMemSampler takes a first sample of process pid, then one every interval until Stop.
// It fails when the first sample cannot be read.
func StartMemSampler(pid int, interval time.Duration) (*MemSampler, error) {
	return StartMemSamplerSum([]int{pid}, interval)
}

// StartMemSamplerSum is StartMemSampler of the processes pids together (e.g. a server's
// replicas): each sample is the sum of their MemStatus, read one after the other, and its
// HWM the sum of their own peaks (an upper bound of the peak of the sum).
func StartMemSamplerSum(pids []int, interval time.Duration) (*MemSampler, error) {
	if len(pids) == 0 {
		return nil, fmt.Errorf("cannot sample the memory of no process")
	}
	s := &MemSampler{pids: append([]int(nil), pids...), stop: make(chan struct{}), done: make(chan struct{})}
	if err := s.sample(); err != nil {
		return nil, err
	}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				if s.sample() != nil {
					return // the process is gone; Err reports why
				}
			}
		}
	}()
	return s, nil
}

// sample takes one sample and folds it into the peaks.
func (s *MemSampler) sample() error {
	var m MemStatus
	var err error
	for _, pid := range s.pids {
		var one MemStatus
		if one, err = ReadMemStatus(pid); err != nil {
			break
		}
		m.RSS += one.RSS
		m.HWM += one.HWM
		m.Anon += one.Anon
		m.File += one.File
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return err
	}
	s.samples++
	s.last = m
	s.peak = max(s.peak, m.RSS)
	s.peakHere = max(s.peakHere, m.RSS)
	return nil
}

// TakePeak returns the highest VmRSS sampled since the previous TakePeak (or the start), in
// bytes, and starts a new period.
func (s *MemSampler) TakePeak() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peakHere
	s.peakHere = s.last.RSS
	return p
}

// Peak returns the highest VmRSS sampled so far, the number of samples, and the last
// sample (whose HWM is the kernel's own peak, which also covers moments between samples).
func (s *MemSampler) Peak() (peakRSS uint64, samples int, last MemStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.samples, s.last
}

// PeakNow takes a sample now and returns the peak RSS so far: the larger of the highest
// VmRSS sampled and the kernel's VmHWM (which also covers moments between samples), in
// bytes. It fails when the sample cannot be read.
func (s *MemSampler) PeakNow() (uint64, error) {
	if err := s.sample(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.peak, s.last.HWM), nil
}

// Err returns the first sampling error, e.g. because the process exited; nil if none.
func (s *MemSampler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stop ends sampling and waits for the sampling goroutine. It is idempotent.
func (s *MemSampler) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}

// StoredSettle is how long a memory figure waits after storing objects before reading the
// server's memory: the watch cache makes the objects no one read for one to two cooler
// passes (5s each) cold, and apigen's GC pacer (runtime/gcpacer) returns the garbage of the
// load and of the freezing 1.5-2.5s after it ends (read at 5s, 10,000 stored objects were
// still decoded: 220 MB on 16 cores).
const StoredSettle = 15 * time.Second

// DropPageCache asks the kernel to drop the page cache of the file at path
// (posix_fadvise POSIX_FADV_DONTNEED), so that a process started from it next maps only the
// pages it reads. A binary just written (built, or unpacked on another machine) sits in the
// page cache in large folios that a process maps whole: its file-backed RSS is then about the
// whole loadable image (77 MB for the example server against 56-58 MB once the cache was
// dropped), whatever the process touched. The file is synced first: the kernel drops no
// dirty page, and a binary just written is dirty until written back (about 30 s later).
// Pages mapped by a running process stay. Errors: the file cannot be opened or synced, or
// the call fails.
func DropPageCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot drop the page cache of %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot drop the page cache of %s: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("cannot drop the page cache of %s: %w", path, err)
	}
	return nil
}

package bench

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParseMemStatus(t *testing.T) {
	status := "Name:\texample-apiserver\nVmPeak:\t 1300000 kB\nVmHWM:\t   81234 kB\nVmRSS:\t   80000 kB\n" +
		"RssAnon:\t   30000 kB\nRssFile:\t   49000 kB\nRssShmem:\t    1000 kB\nThreads:\t12\n"
	m, err := parseMemStatus([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if want := (MemStatus{RSS: 80000 * 1024, HWM: 81234 * 1024, Anon: 30000 * 1024, File: 49000 * 1024}); m != want {
		t.Errorf("parseMemStatus = %+v, want %+v", m, want)
	}
	for _, bad := range []string{
		"VmRSS:\t 1 kB\n",                      // no VmHWM (a kernel thread has neither)
		"VmHWM:\t 1 kB\nVmRSS:\t many kB\n",    // not a number
		"VmHWM:\t 1 kB\nVmRSS:\t 1 MB\n",       // unexpected unit
		"VmHWM:\t 1 kB\nVmRSS:\t 1 kB extra\n", // unexpected shape
	} {
		if _, err := parseMemStatus([]byte(bad)); err == nil {
			t.Errorf("parseMemStatus(%q) succeeded, want an error", bad)
		}
	}
}

// sampleOwnProcess starts a sampler of this test process every interval, stopped when t ends.
func sampleOwnProcess(t *testing.T, interval time.Duration) *MemSampler {
	t.Helper()
	s, err := StartMemSampler(os.Getpid(), interval)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// TestMemSamplerOwnProcess samples this test process, whose RSS is far from zero.
func TestMemSamplerOwnProcess(t *testing.T) {
	s := sampleOwnProcess(t, time.Millisecond)
	peak, samples, last := s.Peak()
	if samples < 1 || peak < 1<<20 || last.RSS > peak || last.HWM < last.RSS {
		t.Errorf("Peak() = %d bytes, %d samples, last %+v; want >= 1 MiB, >= 1 sample, RSS <= peak, HWM >= RSS",
			peak, samples, last)
	}
	if here := s.TakePeak(); here < 1<<20 || here > peak {
		t.Errorf("TakePeak() = %d, want between 1 MiB and the overall peak %d", here, peak)
	}
	s.Stop()
	s.Stop() // idempotent
	if err := s.Err(); err != nil {
		t.Errorf("Err() = %v, want nil while the process lives", err)
	}
}

// TestMemSamplerPeakNow checks that PeakNow sees memory touched after the last periodic
// sample: with an interval of an hour, only the first sample precedes it.
func TestMemSamplerPeakNow(t *testing.T) {
	s := sampleOwnProcess(t, time.Hour)
	before, _, _ := s.Peak()
	block := make([]byte, 64<<20)
	for i := range block { // resident only once written
		block[i] = 1
	}
	now, err := ReadMemStatus(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	peak, err := s.PeakNow()
	if err != nil {
		t.Fatal(err)
	}
	if peak < now.RSS || peak < before+32<<20 {
		t.Errorf("PeakNow() = %d bytes, want >= VmRSS after touching 64 MiB (%d) and >= the first sample %d + 32 MiB", peak, now.RSS, before)
	}
	runtime.KeepAlive(block)
}

func TestMemSamplerMissingProcess(t *testing.T) {
	// PIDs are at most 2^22 on Linux, so this one cannot exist.
	if _, err := StartMemSampler(1<<23, time.Millisecond); err == nil || !strings.Contains(err.Error(), "cannot read memory status") {
		t.Errorf("StartMemSampler of a missing process: err = %v, want a read error", err)
	}
}

// TestMemSamplerSum samples this process twice over: every sample is the sum of both reads.
func TestMemSamplerSum(t *testing.T) {
	one, err := ReadMemStatus(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartMemSamplerSum([]int{os.Getpid(), os.Getpid()}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	if _, samples, last := s.Peak(); samples != 1 || last.RSS < one.RSS*3/2 || last.HWM < one.HWM*3/2 {
		t.Errorf("sum of two reads of this process: %+v (%d samples), want about twice %+v", last, samples, one)
	}
	if _, err := StartMemSamplerSum(nil, time.Millisecond); err == nil {
		t.Error("StartMemSamplerSum of no process succeeded")
	}
	if _, err := StartMemSamplerSum([]int{os.Getpid(), 1 << 23}, time.Millisecond); err == nil {
		t.Error("StartMemSamplerSum with a missing process succeeded")
	}
}

// TestDropPageCache: a file just written and read is in the page cache; after DropPageCache
// none of its pages is (mincore on a fresh mapping, which touches none).
func TestDropPageCache(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "image")
	data := bytes.Repeat([]byte("apigen\n"), 1<<20) // 7 MiB
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Not synced: the file's pages are dirty, as a binary's just built, and DropPageCache
	// drops them all the same.
	if _, err := io.ReadAll(f); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, f, len(data)); n == 0 {
		t.Fatal("no page of a file just read is resident; cannot test dropping them")
	}
	if err := DropPageCache(path); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, f, len(data)); n != 0 {
		t.Errorf("%d pages still resident after DropPageCache", n)
	}
	if err := DropPageCache(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("DropPageCache of a missing file succeeded")
	}
}

// residentPages maps size bytes of f and returns how many of their pages are in memory.
func residentPages(t *testing.T, f *os.File, size int) int {
	t.Helper()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
	// x/sys/unix has no Mincore on Linux: the raw system call.
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

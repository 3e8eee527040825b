package bench

import (
	"os/exec"
	"slices"
	"testing"
)

func TestSplitCPUs(t *testing.T) {
	seq := func(from, to int) []int {
		var out []int
		for c := from; c <= to; c++ {
			out = append(out, c)
		}
		return out
	}
	for _, tc := range []struct {
		cpus                            []int
		etcd, server, embedded, loadgen string
	}{
		{seq(0, 15), "0-3", "4-7", "0-7", "8-15"},
		{seq(0, 11), "0-3", "4-7", "0-7", "8-11"},
		{seq(0, 63), "0-3", "4-7", "0-7", "8-63"},
		// An affinity with holes (e.g. taskset -c 2-9,12-17): the sets follow its order.
		{append(seq(2, 9), seq(12, 17)...), "2-5", "6-9", "2-9", "12-17"},
	} {
		s, err := SplitCPUs(tc.cpus)
		if err != nil {
			t.Fatalf("SplitCPUs(%s): %v", FormatCPUList(tc.cpus), err)
		}
		got := []string{FormatCPUList(s.Etcd), FormatCPUList(s.Server), FormatCPUList(s.EmbeddedServer), FormatCPUList(s.Loadgen)}
		if want := []string{tc.etcd, tc.server, tc.embedded, tc.loadgen}; !slices.Equal(got, want) {
			t.Errorf("SplitCPUs(%s) = %q, want %q", FormatCPUList(tc.cpus), got, want)
		}
		// The sets the processes run on at the same time are disjoint.
		for _, c := range s.Loadgen {
			if slices.Contains(s.EmbeddedServer, c) {
				t.Errorf("SplitCPUs(%s): CPU %d in both the load generator's and the server's sets", FormatCPUList(tc.cpus), c)
			}
		}
	}
	if _, err := SplitCPUs(seq(0, 10)); err == nil {
		t.Error("SplitCPUs of 11 CPUs succeeded, want an error below 12")
	}
	if _, err := SplitCPUs(seq(0, 1)); err == nil {
		t.Error("SplitCPUs of 2 CPUs succeeded, want an error")
	}
}

func TestFormatCPUList(t *testing.T) {
	for _, tc := range []struct {
		cpus []int
		want string
	}{{nil, ""}, {[]int{3}, "3"}, {[]int{0, 1, 2, 3, 8}, "0-3,8"}, {[]int{0, 2, 4, 5}, "0,2,4-5"}} {
		if got := FormatCPUList(tc.cpus); got != tc.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tc.cpus, got, tc.want)
		}
	}
}

// TestWithCPUs starts a real child process under WithCPUs and reads its affinity from /proc:
// it is the set asked for, not the test's, and the test's thread has its own back.
func TestWithCPUs(t *testing.T) {
	t.Parallel()
	all, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Skipf("needs 2 CPUs to pin a child to one of them, have %s", FormatCPUList(all))
	}
	one := all[len(all)-1:]
	cmd := exec.Command("sleep", "10")
	if err := WithCPUs(one, cmd.Start); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	got, err := ProcessCPUs(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if want := FormatCPUList(one); got != want {
		t.Errorf("child's Cpus_allowed_list = %q, want %q", got, want)
	}
	after, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after, all) {
		t.Errorf("the calling thread's CPUs after WithCPUs = %s, want %s back", FormatCPUList(after), FormatCPUList(all))
	}
}

package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseCPUTime(t *testing.T) {
	// A command name with a space and a parenthesis, utime 250 and stime 50 ticks.
	stat := "4242 (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 1000 1000000 2000 18446744073709551615\n"
	got, err := parseCPUTime([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; got != want {
		t.Errorf("parseCPUTime = %v, want %v", got, want)
	}
	for _, bad := range []string{"4242 no parenthesis", "4242 (a) S 1 2", "4242 (a) S 1 4242 4242 0 -1 4194560 100 0 0 0 x 50\n"} {
		if _, err := parseCPUTime([]byte(bad)); err == nil {
			t.Errorf("parseCPUTime(%q) succeeded, want an error", bad)
		}
	}
}

// TestReadCPUTimeGrows burns CPU in this process until its CPU time moves, bounded by a
// number of rounds rather than a wall-clock assertion.
func TestReadCPUTimeGrows(t *testing.T) {
	before, err := ReadCPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := uint64(1)
	for round := 0; round < 1000; round++ {
		for i := 0; i < 1_000_000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		after, err := ReadCPUTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			return
		}
	}
	t.Errorf("CPU time stayed at %v after 10^9 multiplications (x=%d)", before, x)
}

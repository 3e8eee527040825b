package freeport

import (
	"net"
	"testing"
)

// TestPortIsFreeOutsideTheEphemeralRangeAndNeverRepeated: every port Port returns can be
// listened on, lies in 20000-32767, and is returned once.
func TestPortIsFreeOutsideTheEphemeralRangeAndNeverRepeated(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p := Port(t)
		if p < lowest || p > highest {
			t.Fatalf("Port() = %d, want within %d-%d", p, lowest, highest)
		}
		if seen[p] {
			t.Fatalf("Port() returned %d twice", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp", Addr(t))
		if err != nil {
			t.Fatalf("listen on a port Addr returned: %v", err)
		}
		_ = l.Close()
	}
}

package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWriteTableAndTargets(t *testing.T) {
	rows := []Row{
		{Op: OpCreate, Clients: 64, Server: Summary{Ops: 400, Elapsed: time.Second, P50: time.Millisecond, P99: 3 * time.Millisecond},
			Raw: Summary{Ops: 1000, Elapsed: time.Second, P50: 500 * time.Microsecond, P99: time.Millisecond}, ServerPeakRSS: 100 << 20},
		{Op: OpGet, Clients: 64, Server: Summary{Ops: 399, Elapsed: time.Second}, Raw: Summary{Ops: 1000, Elapsed: time.Second}},
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"server/raw", "40.0%", "39.9%", "1.000ms", "0.500ms", "100.0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if CheckTargets(&out, rows, IssueTargets, 200e6) {
		t.Errorf("CheckTargets passed with get at 39.9%%:\n%s", out.String())
	}
	for _, want := range []string{"create at 64 clients >= 40% of raw etcd:  40.0% PASS", "get    at 64 clients >= 40% of raw etcd:  39.9% MISS",
		"update at 64 clients >= 40% of raw etcd: not measured", "peak 200.0 MB PASS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("targets lack %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if CheckTargets(&out, rows[:1], IssueTargets, MaxRSS) {
		t.Errorf("CheckTargets passed with RSS at the limit:\n%s", out.String())
	}
	if !CheckTargets(&out, rows[:1], IssueTargets, 0) {
		t.Errorf("CheckTargets failed with only passing targets measured:\n%s", out.String())
	}
	if r := (Row{Server: Summary{Ops: 1, Elapsed: time.Second}}).Ratio(); r != 0 {
		t.Errorf("Ratio with no raw operations = %v, want 0", r)
	}
}

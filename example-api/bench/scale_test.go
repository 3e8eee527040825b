package bench

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// sum is a Summary of ops operations in a second with latency p99.
func sum(ops int, p99 time.Duration) Summary {
	return Summary{Ops: ops, Elapsed: time.Second, P50: p99 / 2, P99: p99}
}

// TestWriteTableWithAnchor: with the anchor, every row carries its ops/s, latencies, the
// server/anchor multiple, its errors and RSS; a row without it has dashes there.
func TestWriteTableWithAnchor(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Op: OpCreate, Clients: 64, Server: sum(3000, 4*time.Millisecond), Raw: sum(6000, time.Millisecond),
			Anchor: sum(1000, 8*time.Millisecond), HasAnchor: true, AnchorPeakRSS: 300 << 20},
		{Op: OpGet, Clients: 64, Server: sum(900, time.Millisecond), Raw: sum(1000, time.Millisecond)},
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("table:\n%s", out.String())
	}
	for _, want := range []string{"anchor ops/s", "server/anchor", "anchor errors", "anchor RSS MiB"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("header lacks %q: %s", want, lines[0])
		}
	}
	if f := strings.Fields(lines[1]); len(f) < 16 || f[9] != "1000" || f[10] != "4.000ms" || f[11] != "8.000ms" || f[12] != "3.00x" ||
		f[13] != "0" || f[14] != "300.0" || f[15] != "0/0" {
		t.Errorf("create row: %q", f)
	}
	if f := strings.Fields(lines[2]); len(f) < 16 || f[9] != "-" || f[12] != "-" || f[15] != "0/0" {
		t.Errorf("get row without the anchor: %q", f)
	}
	// Without the anchor in any row, the table is as before.
	out.Reset()
	if err := WriteTable(&out, rows[1:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "anchor") {
		t.Errorf("table without the anchor names it:\n%s", out.String())
	}
}

// TestCheckScaleTargets checks each kind of scale target on figures that meet or miss it.
func TestCheckScaleTargets(t *testing.T) {
	t.Parallel()
	in := ScaleFigures{
		Embedded: true,
		Rows: []Row{
			{Op: OpCreate, Clients: 64, Server: sum(6000, 40*time.Millisecond), Raw: sum(10000, time.Millisecond),
				Anchor: sum(2000, 50*time.Millisecond), HasAnchor: true},
			{Op: OpGet, Clients: 64, Server: sum(10000, time.Millisecond), Raw: sum(10000, time.Millisecond),
				Anchor: sum(6000, time.Millisecond), HasAnchor: true},
			{Op: OpList, Clients: 1, Server: sum(50, time.Millisecond), Raw: sum(200, time.Millisecond)},
			{Op: OpList, Clients: 64, Server: sum(50, time.Millisecond)}, // raw etcd completed nothing
		},
		Watch: []WatchSummary{
			{Watchers: 0, Rate: 10, Writes: 600, WriterP99: 2 * time.Millisecond},
			{Watchers: 1000, Rate: 10, Writes: 600, Expected: 600_000, Delivered: 600_000, P99: 12 * time.Millisecond, WriterP99: 5 * time.Millisecond},
			{Watchers: 10000, Rate: 10, Expected: 2_000_000, Delivered: 1_999_999, P99: 50 * time.Millisecond, PeakRSS: 500e6},
		},
		AnchorWatch:   []WatchSummary{{Watchers: 1000, Rate: 10, Expected: 200_000, Delivered: 200_000, P99: 15 * time.Millisecond}},
		IdleRSS:       90e6,
		AnchorIdleRSS: 70e6,
		CachedRSS:     140e6,
		PeakRSS:       410e6,
	}
	var out bytes.Buffer
	met, missed := CheckScaleTargets(&out, in)
	got := out.String()
	for _, want := range []string{
		"scale: create at 64 clients >= 2x the anchor: 6000 ops/s against 2000, 3.00x PASS",
		"scale: get    at 64 clients >= 2x the anchor: 10000 ops/s against 6000, 1.67x MISS",
		"scale: list   at  1 clients >= 2x the anchor: not measured",
		"scale: create at 64 clients >= 57% of raw etcd: 60.0% PASS",
		"scale: get    at 64 clients >= 123% of raw etcd: 100.0% MISS",
		"scale: update at 64 clients >= 44% of raw etcd: not measured",
		"scale: list   at  1 clients >= 100% of raw etcd: 25.0% MISS",
		"scale: list   at 64 clients >= 100% of raw etcd: not measured",
		"scale: create p99 at 64 clients <= the anchor's: 40.000ms against 50.000ms PASS",
		"scale: 1000 watchers x 10 writes/s: p99 <= the anchor's and <= 20ms, none lost: p99 12.000ms against 15.000ms, 0 lost PASS",
		"scale: writer's p99 with 1000 watchers <= 2x with none: 5.000ms against 2.000ms (600 and 600 writes) MISS",
		"scale: 10000 watchers x 10 writes/s: none lost, p99 <= 100ms, server RSS <= 1000 MB: 1 lost, p99 50.000ms, peak RSS 500.0 MB MISS",
		"scale: idle RSS with the embedded etcd <= 80 MB: 90.0 MB (anchor 70.0 MB) MISS",
		"scale: RSS with 10000 objects <= 150 MB: 140.0 MB (anchor - MB) PASS",
		"scale: peak RSS over the run (fan-outs of >= 10000 watchers aside) <= 400 MB: 410.0 MB (anchor - MB) MISS",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if met != 5 || missed != 7 {
		t.Errorf("met %d, missed %d; want 5 and 7:\n%s", met, missed, got)
	}

	// A p99 of too few writes is not held to the target.
	in.Watch[0].Writes = 200
	out.Reset()
	CheckScaleTargets(&out, in)
	if want := "scale: writer's p99 with 1000 watchers <= 2x with none: 5.000ms against 2.000ms, but of 600 and 200 writes (a p99 wants >= 500: -watch-duration >= 50s): not measured\n"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	in.Watch[0].Writes = 600

	// On the external etcd the idle RSS is held to the anchor's, and today's shares of raw
	// etcd (the embedded topology's) are not checked.
	in.Embedded = false
	out.Reset()
	CheckScaleTargets(&out, in)
	got = out.String()
	if !strings.Contains(got, "scale: idle RSS <= the anchor's: 90.0 MB against 70.0 MB MISS\n") ||
		strings.Contains(got, "57% of raw etcd") || !strings.Contains(got, "list   at  1 clients >= 100% of raw etcd") {
		t.Errorf("external etcd:\n%s", got)
	}
}

func TestFlunderTemplate(t *testing.T) {
	t.Parallel()
	tmpl, err := NewObjectTemplateFor(Flunders, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tmpl.Render(nil, "bench-object-0000042", "", 7)); n < 1022 || n > 1026 {
		t.Errorf("rendered %d bytes, want 1024 within 2", n)
	}
	body := tmpl.Render(nil, "bench-object-0000042", "17", 7)
	want := `{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder","metadata":{"name":"bench-object-0000042","resourceVersion":"17",` +
		`"annotations":{"seq":"7","p000":"xxxxxxxxxxxxxxxx",`
	if !strings.HasPrefix(string(body), want) || !strings.HasSuffix(string(body), `"}},"spec":{}}`) {
		t.Errorf("rendered %s", body)
	}
	var ev watchEvent
	if err := json.Unmarshal(append([]byte(`{"type":"MODIFIED","object":`), append(body, '}')...), &ev); err != nil || ev.seq() != "7" {
		t.Errorf("a watch event of it has seq %q (%v), want 7", ev.seq(), err)
	}
}

func TestOrderFanouts(t *testing.T) {
	in := []WatchTarget{{Watchers: 0, Rate: 10}, {Watchers: 20000, Rate: 1}, {Watchers: 1000, Rate: 10}, {Watchers: 10000, Rate: 10}, {Watchers: 64, Rate: 100}}
	got := OrderFanouts(in)
	want := []WatchTarget{in[0], in[2], in[4], in[1], in[3]}
	if !slices.Equal(got, want) {
		t.Errorf("OrderFanouts(%v) = %v, want %v", in, got, want)
	}
}

func TestFanoutDuration(t *testing.T) {
	for _, c := range []struct {
		t    WatchTarget
		want time.Duration
	}{
		{WatchTarget{Watchers: 0, Rate: 10}, 50 * time.Second},    // the writer's baseline: 500 writes
		{WatchTarget{Watchers: 1000, Rate: 10}, 50 * time.Second}, // compared with it
		{WatchTarget{Watchers: 64, Rate: 100}, 10 * time.Second},  // 500 writes take 5s: the least
		{WatchTarget{Watchers: 10000, Rate: 10}, 10 * time.Second},
		{WatchTarget{Watchers: 3, Rate: 1}, 500 * time.Second},
	} {
		if got := FanoutDuration(c.t); got != c.want {
			t.Errorf("FanoutDuration(%+v) = %s, want %s", c.t, got, c.want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/example-api/bench"
)

// TestPinning: -pin auto pins from 12 CPUs on, and never where loadgen itself runs the
// server or the etcd cluster; -pin on refuses what it cannot pin; -pin off never pins.
func TestPinning(t *testing.T) {
	t.Parallel()
	cpus, err := bench.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	many := len(cpus) >= bench.MinPinnedCPUs
	var stderr bytes.Buffer
	for _, tc := range []struct {
		args   []string
		pinned bool
		err    bool
	}{
		{[]string{"-pin", "auto"}, many, false},
		{[]string{"-pin", "on"}, many, !many},
		{[]string{"-pin", "off"}, false, false},
		{[]string{"-pin", "auto", "-in-process"}, false, false},
		{[]string{"-pin", "on", "-in-process"}, false, true},
		{[]string{"-pin", "auto", "-etcd", "cluster", "-watch", "", "-mem-objects", "0"}, false, false},
		{[]string{"-pin", "on", "-etcd", "cluster", "-watch", "", "-mem-objects", "0"}, false, true},
	} {
		o, err := parseFlags(tc.args, &stderr)
		if err != nil {
			t.Fatalf("parseFlags(%q): %v", tc.args, err)
		}
		sets, line, err := pinning(o)
		if (err != nil) != tc.err || (sets != nil) != tc.pinned {
			t.Errorf("pinning(%q) = %v, %q, %v; want pinned %v, error %v", tc.args, sets, line, err, tc.pinned, tc.err)
		}
		if err == nil && !strings.HasPrefix(line, "pinned mode ") {
			t.Errorf("pinning(%q) line = %q", tc.args, line)
		}
	}
}

// TestEtcdProcess starts loadgen's etcd as a process of its own on one CPU, as pinned mode
// does: it must run on that CPU only and serve.
func TestEtcdProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd member; skipped in -short mode")
	}
	t.Parallel()
	cpus, err := bench.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) < 2 {
		t.Skipf("needs 2 CPUs to pin etcd to one of them, have %s", bench.FormatCPUList(cpus))
	}
	one := cpus[len(cpus)-1:]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	endpoints, p, err := startEtcdProcess(ctx, t.TempDir(), true, one)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Error(err)
		}
	})
	got, err := bench.ProcessCPUs(p.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if want := bench.FormatCPUList(one); got != want {
		t.Errorf("etcd process's Cpus_allowed_list = %q, want %q", got, want)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(ctx, "/k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get after put = %v, %v", resp, err)
	}
}

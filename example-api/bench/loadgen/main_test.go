package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the floor server, as loadgen is for its -floor
// measurements (startFloor runs os.Executable with serveFloorArg), and the etcd process of
// pinned mode (startEtcdProcess, serveEtcdArg).
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && (os.Args[1] == serveFloorArg || os.Args[1] == serveEtcdArg) {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if serverBuild.dir != "" {
		_ = os.RemoveAll(serverBuild.dir)
	}
	os.Exit(code)
}

// floorLine matches the -floor measurement's line with a positive rate.
var floorLine = regexp.MustCompile(`floor get at 2 clients: .* \(HTTPS, client certificate, HTTP/2, gzip accepted\): [1-9][0-9]* ops/s, .*floor/raw [0-9.]+% of the get row's raw etcd \([0-9]+ ops/s\) \(the get target is >= 80%\)`)

func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"-clients", "2, 4", "-ops", "get,list", "-duration", "1s", "-age", "500000"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.clients) != 2 || o.clients[0] != 2 || o.clients[1] != 4 || len(o.ops) != 2 || o.ops[1] != "list" ||
		o.measure != time.Second || o.etcd != etcdEmbedded || o.age != 500000 {
		t.Errorf("parseFlags = %+v", o)
	}
	for _, bad := range [][]string{
		{"-clients", "0"},
		{"-clients", "a"},
		{"-ops", "patch"},
		{"-duration", "0s"},
		{"-objects", "0"},
		{"-page-size", "-1"},
		{"-etcd", "local"},
		{"-transport", "spdy"},
		{"-watch", "10"},
		{"-etcd-unsafe-no-fsync"}, // the server's embedded member always syncs
		{"-pin", "yes"},
		{"-age", "-1"},
		{"-age", "10", "-anchor-binary", "sample-apiserver"}, // the anchor would stay fresh
		{"extra"},
	} {
		if _, err := parseFlags(bad, &stderr); err == nil {
			t.Errorf("parseFlags(%q) succeeded, want an error", bad)
		}
	}
}

// TestParseFlagsCluster: -etcd cluster measures the operations of the replicas only, as
// separate processes: it wants the watch fan-out and the memory figure off and refuses
// -in-process and -field-management-cost.
func TestParseFlagsCluster(t *testing.T) {
	var stderr bytes.Buffer
	off := []string{"-etcd", "cluster", "-watch", "", "-mem-objects", "0"}
	for _, good := range [][]string{off, append(off, "-etcd-unsafe-no-fsync", "-transport", "http", "-clients", "64")} {
		o, err := parseFlags(good, &stderr)
		if err != nil {
			t.Errorf("parseFlags(%q): %v", good, err)
			continue
		}
		if o.etcd != etcdCluster || len(o.watches) != 0 || o.memObjects != 0 {
			t.Errorf("parseFlags(%q) = %+v", good, o)
		}
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-etcd", "cluster", "-mem-objects", "0"}, "-watch ''"},
		{[]string{"-etcd", "cluster", "-watch", ""}, "-mem-objects 0"},
		{append(off, "-in-process"), "-in-process"},
		{append(off, "-field-management-cost"), "-field-management-cost"},
		{[]string{"-etcd", "clusters", "-watch", "", "-mem-objects", "0"}, `"clusters" is none of`},
	} {
		_, err := parseFlags(bad.args, &stderr)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseFlags(%q) = %v, want an error naming %s", bad.args, err, bad.want)
		}
	}
}

// TestRunInProcess runs the whole benchmark, small and short, with the server in process, in
// both topologies: every operation must succeed on both sides (in the embedded topology the
// raw side reads copies of the server's objects from its own etcd) and the report must show
// every row and target.
func TestRunInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs etcd and the server; skipped in -short mode")
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-etcd", "embedded"}, "on its own embedded etcd (in process"},
		{[]string{"-etcd", "external", "-etcd-unsafe-no-fsync"}, "(--etcd-servers); raw: clientv3 on the same etcd"},
	} {
		t.Run(tc.flags[1], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := run(ctx, append([]string{"-in-process", "-clients", "1,2", "-duration", "100ms", "-warmup", "10ms", "-watch", "3:20", "-watch-duration", "500ms", "-mem-objects", "0",
				"-objects", "30", "-page-size", "10"}, tc.flags...), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("run = %d, want 0\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
			}
			out := stdout.String()
			for _, want := range []string{"server/raw", "create", "get", "update", "apply", "list", "target create at 64 clients", "in process", tc.want,
				"target watch    3 watchers at  20 writes/s: 30/30 events delivered",
				"floor watch    3 watchers at  20 writes/s: the floor server fanning each PUT's body out as an event (HTTPS, client certificate, HTTP/2, gzip accepted): 30/30 events delivered"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if !floorLine.MatchString(out) {
				t.Errorf("output lacks the get floor's line (%s):\n%s", floorLine, out)
			}
			if rows := strings.Count(out, "0/0"); rows != 10 {
				t.Errorf("%d rows without errors, want 5 operations x 2 concurrencies:\n%s", rows, out)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestAnchorArgs checks the anchor's command line: standalone (no core kube-apiserver: the
// kubeconfigs name noCoreAPI, no ConfigMap lookup, no APF, no admission plugin that reads the
// core API, no BanFlunder), client certificates against loadgen's CA, system:masters
// allowed, HTTPS on the loopback port asked for, the benchmark's etcd under its own prefix.
func TestAnchorArgs(t *testing.T) {
	t.Parallel()
	pki := &certs.Bundle{Dir: "/d/pki"}
	args := anchorArgs(4711, []string{"http://127.0.0.1:2379", "http://127.0.0.1:2479"},
		anchorFiles{pki: pki, kubeconfig: "/d/kubeconfig", certDir: "/d/certs"})
	got := map[string]string{}
	for i := 0; i < len(args); i++ {
		name, value, ok := strings.Cut(args[i], "=")
		if !ok && i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			i++
			value = args[i]
		} else if !ok {
			value = "true"
		}
		if _, dup := got[name]; dup {
			t.Errorf("flag %s given twice in %q", name, args)
		}
		got[name] = value
	}
	want := map[string]string{
		"--bind-address":                 "127.0.0.1",
		"--secure-port":                  "4711",
		"--cert-dir":                     "/d/certs",
		"--tls-cert-file":                "/d/pki/apiserver.crt",
		"--tls-private-key-file":         "/d/pki/apiserver.key",
		"--client-ca-file":               "/d/pki/ca.crt",
		"--authentication-skip-lookup":   "true",
		"--authentication-kubeconfig":    "/d/kubeconfig",
		"--authorization-kubeconfig":     "/d/kubeconfig",
		"--kubeconfig":                   "/d/kubeconfig",
		"--enable-priority-and-fairness": "false",
		"--disable-admission-plugins":    "NamespaceLifecycle,MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,BanFlunder",
		"--etcd-servers":                 "http://127.0.0.1:2379,http://127.0.0.1:2479",
		"--etcd-prefix":                  "/anchor",
	}
	for name, value := range want {
		if got[name] != value {
			t.Errorf("%s = %q, want %q", name, got[name], value)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected flag %s=%q", name, got[name])
		}
	}
}

// TestWriteAnchorKubeconfig: the kubeconfig the anchor's core-API options load names
// noCoreAPI, so that a request to a core kube-apiserver would fail, not reach one.
func TestWriteAnchorKubeconfig(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := writeAnchorKubeconfig(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "server: "+noCoreAPI+"\n") || !strings.Contains(string(data), "current-context: no-core-api") {
		t.Errorf("kubeconfig:\n%s", data)
	}
}

// TestMakefileAnchorVersion: make bench-anchor installs the release loadgen names.
func TestMakefileAnchorVersion(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if want := "ANCHOR_VERSION := " + AnchorVersion + "\n"; !strings.Contains(string(data), want) {
		t.Errorf("Makefile lacks %q", want)
	}
}

// TestAnchorSkip: the anchor is measured only where it can run as apigen does.
func TestAnchorSkip(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no -anchor-binary"},
		{[]string{"-anchor-binary", "x"}, ""},
		{[]string{"-anchor-binary", "x", "-etcd", "external"}, ""},
		{[]string{"-anchor-binary", "x", "-transport", "http"}, "HTTPS only"},
		{[]string{"-anchor-binary", "x", "-in-process"}, "-in-process"},
		{[]string{"-anchor-binary", "x", "-etcd", "cluster", "-watch", "", "-mem-objects", "0"}, "-etcd cluster"},
	} {
		o, err := parseFlags(tc.args, &stderr)
		if err != nil {
			t.Fatalf("parseFlags(%q): %v", tc.args, err)
		}
		if got := anchorSkip(o); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("anchorSkip(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// anchorBinary returns the anchor binary make bench-anchor installs ($APIGEN_ANCHOR_BINARY
// overrides it), or skips t when it is not built: make test never downloads and compiles
// k8s.io/sample-apiserver.
func anchorBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("APIGEN_ANCHOR_BINARY")
	if bin == "" {
		bin = "../../../bin/anchor/sample-apiserver"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the anchor is not built (%v): run make bench-anchor (or set APIGEN_ANCHOR_BINARY) to run this test", err)
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// scaleLine matches a scale target line with its verdict.
var scaleLine = regexp.MustCompile(`(?m)^scale: .* (PASS|MISS)$`)

// TestRunAnchor runs the benchmark briefly with the anchor beside the server, both on
// loadgen's etcd (-etcd external): every operation must succeed on all three sides, the
// table must carry the anchor's columns, the fan-outs and memory figures must be the
// anchor's too, and the scale targets must be checked. Skipped when the anchor is not
// built.
func TestRunAnchor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs etcd, the server and the anchor; skipped in -short mode")
	}
	anchor := anchorBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := buildServer(ctx, t)
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-server-binary", bin, "-anchor-binary", anchor, "-etcd", "external", "-etcd-unsafe-no-fsync", "-pin", "off",
		"-clients", "2", "-ops", "create,get,update,list", "-duration", "100ms", "-warmup", "10ms", "-objects", "20", "-page-size", "10",
		"-watch", "0:10,3:20", "-watch-duration", "500ms", "-mem-objects", "0", "-floor=false"}, &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("run = %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, &stderr)
	}
	for _, want := range []string{
		"anchor: k8s.io/sample-apiserver " + AnchorVersion,
		"(--etcd-prefix /anchor), the same workloads on wardle.example.com/v1alpha1 flunders",
		"server/anchor",
		"pinned mode off (-pin off)",
		"watch writer alone (no watchers) at  10 writes/s",
		"anchor watch writer alone (no watchers) at  10 writes/s",
		"target watch    3 watchers at  20 writes/s: 30/30 events delivered",
		"anchor watch    3 watchers at  20 writes/s: 30/30 events delivered",
		"; 0 events lost (0 watchers terminated by the server);",
		"anchor RSS idle after start: ",
		"anchor peak RSS: VmRSS ",
		"scale: idle RSS <= the anchor's: ",
		"scale: create at  2 clients >= 2x the anchor: ",
		"scale: list   at  2 clients >= 2x the anchor: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Every row: no error on any side (server/raw, and the anchor's column).
	rows := regexp.MustCompile(`(?m)^\s*(create|get|update|list)\s+2\s.*$`).FindAllString(out, -1)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4:\n%s", len(rows), out)
	}
	for _, r := range rows {
		f := strings.Fields(r)
		// op clients server(3) raw(3) server/raw anchor(3) server/anchor anchor-errors anchor-RSS errors ...
		if len(f) < 16 || f[13] != "0" || f[15] != "0/0" || !strings.HasSuffix(f[12], "x") {
			t.Errorf("row %q: want the anchor's figures, a server/anchor multiple and no errors", r)
		}
	}
	if n := len(scaleLine.FindAllString(out, -1)); n < 6 {
		t.Errorf("%d scale target lines with a verdict, want at least 6:\n%s", n, out)
	}
}

package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shareLine matches one concurrency's line of -field-management-cost.
var shareLine = regexp.MustCompile(`(?m)^update at  2 clients: server CPU/op \d+us with field management, \d+us without: ` +
	`field management is -?\d+\.\d% of an update's CPU time$`)

// TestFieldManagementCost runs -field-management-cost briefly on a server process: the
// second server (field management off) must start and serve updates, each concurrency gets
// its median line, and no server process is left running.
func TestFieldManagementCost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two servers; skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := buildServer(ctx, t)
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-server-binary", bin, "-field-management-cost", "-clients", "2", "-ops", "update",
		"-duration", "100ms", "-warmup", "10ms", "-objects", "4", "-page-size", "2", "-watch", "", "-mem-objects", "0"}, &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("run = %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, &stderr)
	}
	if !strings.Contains(out, "the median of 3 runs of each, alternating") {
		t.Errorf("the output does not say how the figures were measured:\n%s", out)
	}
	if !shareLine.MatchString(out) {
		t.Errorf("no field management line for 2 clients in the output:\n%s", out)
	}
}

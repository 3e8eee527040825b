package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"extra"}, {"-nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2; stderr:\n%s", args, code, stderr.String())
		}
	}
}

// TestRunReportsEveryTree runs one measurement of apigen and the bare load on every tree,
// without the third-party tools, and checks the report names each tree with its ratio.
func TestRunReportsEveryTree(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and generates every tree")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-n", "1", "-tools=false"}, &stdout, &stderr); code != 0 {
		t.Fatalf("run = %d; stderr:\n%s", code, stderr.String())
	}
	for _, tr := range trees {
		if !strings.Contains(stdout.String(), tr.name+": apigen/bare ") {
			t.Errorf("report lacks the verdict for %s:\n%s", tr.name, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "third-party") {
		t.Errorf("-tools=false report times third-party tools:\n%s", stdout.String())
	}
}

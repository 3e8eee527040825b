package main

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
)

// apigenResult is the best time of apigen, its loader and the bare load on one tree.
type apigenResult struct {
	tree tree
	// packages is how many packages the bare load returned; files how many files apigen
	// generated.
	packages, files int
	// apigen is the whole generate run, load the time of load.Load alone (the bare load plus
	// building the model), bare the bare load.
	apigen, load, bare time.Duration
}

// measureApigen times the bare load, load.Load and apigen generate on every tree of the module
// copy in dir (the working directory), n runs each, interleaved so that all see the same
// machine load; the first error stops it.
func measureApigen(dir string, n int) ([]apigenResult, error) {
	var results []apigenResult
	for _, t := range trees {
		r := apigenResult{tree: t}
		for i := 0; i < n; i++ {
			bare, pkgs, err := timeBare(dir, t.pattern())
			if err != nil {
				return nil, err
			}
			loaded, err := timeLoad(dir, t.pattern())
			if err != nil {
				return nil, err
			}
			whole, files, err := timeApigen(t.pattern())
			if err != nil {
				return nil, err
			}
			r.bare, r.load, r.apigen = best(r.bare, bare), best(r.load, loaded), best(r.apigen, whole)
			r.packages, r.files = pkgs, files
		}
		results = append(results, r)
	}
	return results, nil
}

// best returns the smaller of the best so far (zero: none yet) and d.
func best(sofar, d time.Duration) time.Duration {
	if sofar == 0 || d < sofar {
		return d
	}
	return sofar
}

// timeBare times load.BareLoad of pattern in dir.
func timeBare(dir, pattern string) (time.Duration, int, error) {
	start := time.Now()
	n, err := load.BareLoad(dir, pattern)
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot load %s bare: %w", pattern, err)
	}
	return d, n, nil
}

// timeLoad times load.Load of pattern in dir: the bare load and the model built from it.
func timeLoad(dir, pattern string) (time.Duration, error) {
	start := time.Now()
	_, err := load.Load(dir, pattern)
	d := time.Since(start)
	var diags model.Diagnostics
	if err != nil && (!errors.As(err, &diags) || diags.HasErrors()) {
		return 0, fmt.Errorf("cannot load %s: %w", pattern, err)
	}
	return d, nil
}

// generatedRE matches generate's summary: "apigen generate: 3 packages, 5 kinds, 2 files
// written, 13 unchanged in 412ms".
var generatedRE = regexp.MustCompile(`apigen generate: \d+ packages, \d+ kinds, (\d+) files written, (\d+) unchanged`)

// timeApigen times `apigen generate pattern` in-process, in the working directory, and
// returns how many files it generated.
func timeApigen(pattern string) (time.Duration, int, error) {
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := cli.Run([]string{"generate", pattern}, &stdout, &stderr)
	d := time.Since(start)
	if code != 0 {
		return 0, 0, fmt.Errorf("apigen generate %s exited %d:\n%s%s", pattern, code, stderr.String(), stdout.String())
	}
	m := generatedRE.FindStringSubmatch(stdout.String())
	if m == nil {
		return 0, 0, fmt.Errorf("cannot read apigen generate's summary: %q", stdout.String())
	}
	written, _ := strconv.Atoi(m[1])
	unchanged, _ := strconv.Atoi(m[2])
	return d, written + unchanged, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
)

// noFieldManagement is the flag of the server that measures an update without field
// management.
const noFieldManagement = "--feature-gates=ServerSideApply=false"

// fmRounds is how many times fieldManagementCost measures each server at each concurrency.
const fmRounds = 3

// fieldManagementCost measures updates at every concurrency on the main run's server
// (withOps, whose CPU time withCPU reads) and on a second server started with
// noFieldManagement on its own embedded etcd, alternately, fmRounds times each, and prints
// the median server CPU time per update of each and field management's share of an update's
// CPU time. Alternating and taking medians keeps the share, a difference of two
// measurements, from following the machine's drift between them. It needs the default
// topology (each server on its own embedded etcd) and a server binary.
func fieldManagementCost(ctx context.Context, o *options, bin, dir string, withOps *bench.Scenario,
	withCPU func() (time.Duration, error), out io.Writer) (err error) {
	if o.inProcess || o.etcd != etcdEmbedded {
		return errors.New("-field-management-cost needs the server as a process on its own embedded etcd (-etcd embedded, no -in-process)")
	}
	if !slices.Contains(o.ops, bench.OpUpdate) {
		return nil
	}
	args := append(slices.Clone(o.serverArgs), noFieldManagement)
	srv, err := startServerProcess(ctx, bin, filepath.Join(dir, "server-no-field-management"), nil, o.https, args)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.stop()) }()
	serverClient, err := dialEtcd([]string{srv.embeddedEtcd})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, serverClient.Close()) }()
	ops := bench.NewEtcdOps(serverClient, etcdPrefix)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	withoutOps, err := bench.NewScenario(runCtx, bench.ScenarioConfig{
		ServerURL: srv.url, TLS: srv.tls, ObjectSize: o.objectSize, Objects: o.objects, PageSize: o.pageSize,
		MaxClients: slices.Max(o.clients), Etcd: ops, ServerEtcd: ops, NoApply: true,
	})
	if err != nil {
		return err
	}
	withoutCPU := func() (time.Duration, error) { return bench.ReadCPUTime(srv.pid) }
	fmt.Fprintf(out, "\nfield management: server CPU/op of an update with it (the server above) and without it (a second server, %s), "+
		"the median of %d runs of each, alternating\n", noFieldManagement, fmRounds)
	for _, clients := range o.clients {
		var with, without []bench.Summary
		for range fmRounds {
			for _, side := range []struct {
				scenario *bench.Scenario
				cpu      func() (time.Duration, error)
				runs     *[]bench.Summary
			}{{withOps, withCPU, &with}, {withoutOps, withoutCPU, &without}} {
				sum, err := measureUpdates(runCtx, o, clients, side.scenario, side.cpu)
				if err != nil {
					return err
				}
				*side.runs = append(*side.runs, sum)
			}
		}
		fmt.Fprintln(out, bench.FieldManagementShare(clients, bench.MedianCPUPerOp(with), bench.MedianCPUPerOp(without)))
	}
	return nil
}

// measureUpdates measures updates through scenario at clients clients, with the server's CPU
// time read by cpu. Errors: the run cannot start, or an update failed.
func measureUpdates(ctx context.Context, o *options, clients int, scenario *bench.Scenario, cpu func() (time.Duration, error)) (bench.Summary, error) {
	newOp, err := scenario.ServerOp(ctx, bench.OpUpdate)
	if err != nil {
		return bench.Summary{}, err
	}
	sum, err := bench.Run(ctx, bench.Config{Clients: clients, Warmup: o.warmup, Measure: o.measure, CPUTime: cpu}, newOp)
	if err != nil {
		return bench.Summary{}, err
	}
	if sum.FirstError != nil {
		return bench.Summary{}, fmt.Errorf("update at %d clients: %w", clients, sum.FirstError)
	}
	return sum, nil
}

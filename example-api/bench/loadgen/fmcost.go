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

// fieldManagementCost measures the update operation at every concurrency on a second server,
// started with noFieldManagement on its own embedded etcd, and prints the server's CPU time
// per update with field management (withRows, the update rows of the main run) and without,
// and field management's share of an update's CPU time. It needs the default topology (each
// server on its own embedded etcd) and a server binary.
func fieldManagementCost(ctx context.Context, o *options, bin, dir string, withRows []bench.Row, out io.Writer) (err error) {
	if o.inProcess || o.etcd != etcdEmbedded {
		return errors.New("-field-management-cost needs the server as a process on its own embedded etcd (-etcd embedded, no -in-process)")
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
	scenario, err := bench.NewScenario(runCtx, bench.ScenarioConfig{
		ServerURL: srv.url, TLS: srv.tls, ObjectSize: o.objectSize, Objects: o.objects, PageSize: o.pageSize,
		MaxClients: slices.Max(o.clients), Etcd: ops, ServerEtcd: ops, NoApply: true,
	})
	if err != nil {
		return err
	}
	cpu := func() (time.Duration, error) { return bench.ReadCPUTime(srv.pid) }
	fmt.Fprintf(out, "\nfield management: server CPU/op of an update with it (above) and without it (a second server, %s)\n", noFieldManagement)
	for _, row := range withRows {
		if row.Op != bench.OpUpdate {
			continue
		}
		newOp, err := scenario.ServerOp(runCtx, bench.OpUpdate)
		if err != nil {
			return err
		}
		without, err := bench.Run(runCtx, bench.Config{Clients: row.Clients, Warmup: o.warmup, Measure: o.measure, CPUTime: cpu}, newOp)
		if err != nil {
			return err
		}
		if without.FirstError != nil {
			return fmt.Errorf("update without field management at %d clients: %w", row.Clients, without.FirstError)
		}
		fmt.Fprintln(out, bench.FieldManagementShare(row.Clients, row.Server, without))
	}
	return nil
}

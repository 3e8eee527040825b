package app

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/apigen-dev/apigen/runtime/gcpacer"
)

// MemoryOptions bound the process's memory: the Go collector's soft limit, and the embedded
// etcd member's snapshot count and database quota (its MVCC history is bounded by
// --etcd-compaction-interval, its in-memory raft log by the member itself). README's
// "Memory" section describes what each bounds.
type MemoryOptions struct {
	// GCMemoryLimit is a soft limit on the Go runtime's memory (heap, stacks, runtime
	// structures), as the GOMEMLIMIT environment variable, which it overrides: a quantity
	// such as "512Mi" or "1G"; "0" (the default) sets none. The collector runs earlier as the
	// process nears it; a live heap that outgrows it raises it (gcpacer.SetMemoryLimit), so
	// the collector never runs back to back.
	GCMemoryLimit string
	// EmbeddedEtcdSnapshotCount is the embedded member's etcd --snapshot-count: applied
	// entries between snapshots to disk, which bound the WAL a restart replays; 0 (the
	// default) is etcd's 10,000.
	EmbeddedEtcdSnapshotCount uint64
	// EmbeddedEtcdQuotaBackendBytes is the embedded member's etcd --quota-backend-bytes: the
	// most its database (memory-mapped: file-backed RSS) may take before it refuses writes
	// with "etcdserver: mvcc: database space exceeded"; 0 (the default) is etcd's 2 GiB.
	EmbeddedEtcdQuotaBackendBytes int64
}

// AddFlags registers the options on fs.
func (o *MemoryOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.GCMemoryLimit, "gc-memory-limit", o.GCMemoryLimit, "soft limit on the Go runtime's memory (heap, stacks, runtime), as GOMEMLIMIT, which it overrides: a quantity such as 512Mi; the collector runs earlier near it, and it gives way to a live heap that outgrows it; 0 for none")
	fs.Uint64Var(&o.EmbeddedEtcdSnapshotCount, "embedded-etcd-snapshot-count", o.EmbeddedEtcdSnapshotCount, "the embedded etcd's --snapshot-count: committed entries between snapshots to disk, which bound the WAL replayed at start; 0 for etcd's 10000")
	fs.Int64Var(&o.EmbeddedEtcdQuotaBackendBytes, "embedded-etcd-quota-backend-bytes", o.EmbeddedEtcdQuotaBackendBytes, "the embedded etcd's --quota-backend-bytes: the most bytes its database may take before it refuses writes (\"database space exceeded\"); 0 for etcd's 2 GiB")
}

// gcMemoryLimit returns --gc-memory-limit in bytes; 0 for none.
func (o *MemoryOptions) gcMemoryLimit() (int64, error) {
	if o.GCMemoryLimit == "" {
		return 0, nil
	}
	q, err := resource.ParseQuantity(o.GCMemoryLimit)
	if err != nil {
		return 0, fmt.Errorf("--gc-memory-limit %q is not a quantity such as 512Mi: %v", o.GCMemoryLimit, err)
	}
	if q.Sign() < 0 {
		return 0, fmt.Errorf("--gc-memory-limit %q must not be negative", o.GCMemoryLimit)
	}
	return q.Value(), nil
}

// validate reports the options' errors; servers are --etcd-servers.
func (o *MemoryOptions) validate(servers []string, backend string) []string {
	var errs []string
	if _, err := o.gcMemoryLimit(); err != nil {
		errs = append(errs, err.Error())
	}
	if o.EmbeddedEtcdQuotaBackendBytes < 0 {
		errs = append(errs, "--embedded-etcd-quota-backend-bytes must not be negative")
	}
	embeddedOnly := o.EmbeddedEtcdSnapshotCount != 0 || o.EmbeddedEtcdQuotaBackendBytes != 0
	if embeddedOnly && (len(servers) > 0 || (backend != "" && backend != etcd3Backend)) {
		errs = append(errs, "--embedded-etcd-snapshot-count and --embedded-etcd-quota-backend-bytes need the embedded etcd (no --etcd-servers, --storage-backend=etcd3)")
	}
	return errs
}

// applyGCMemoryLimit sets --gc-memory-limit as the process's soft memory limit, when given
// (not 0); the options are valid.
func (o *MemoryOptions) applyGCMemoryLimit() {
	if limit, _ := o.gcMemoryLimit(); limit > 0 {
		gcpacer.SetMemoryLimit(limit)
	}
}

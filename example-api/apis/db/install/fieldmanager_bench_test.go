package install_test

import (
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/runtime/fieldmanager"
)

// benchDatabase returns an internal Database of about 1 KiB of JSON, as example-api/bench's
// objects: 40 padding parameters and a "seq" one.
func benchDatabase(seq int) *db.Database {
	params := map[string]string{"seq": fmt.Sprint(seq)}
	for i := range 40 {
		params[fmt.Sprintf("p%03d", i)] = "xxxxxxxxxxxxxxxx"
	}
	return &db.Database{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "ns", UID: "u", ResourceVersion: "7"},
		Spec: db.DatabaseSpec{Engine: "postgres", Parameters: params}}
}

// BenchmarkFieldManager measures what field management adds to one write of the benchmark's
// Database in the server: an update (FieldManager.UpdateNoErrors, as every PUT and non-apply
// PATCH runs; update-reference with managedfields' own TypeConverter) and a server-side apply
// of a changed field (FieldManager.Apply), against a baseline of one conversion of the object
// to v1 and back, the least a write does.
func BenchmarkFieldManager(b *testing.B) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	tc, err := fieldmanager.NewTypeConverter(scheme, install.GetOpenAPIDefinitions)
	if err != nil {
		b.Fatal(err)
	}
	fm, err := fieldmanager.New(fieldmanager.Config{TypeConverter: tc, Convertor: runtime.UnsafeObjectConvertor(scheme),
		Defaulter: scheme, Creater: scheme, Kind: v1.SchemeGroupVersion.WithKind("Database"), Hub: db.SchemeGroupVersion})
	if err != nil {
		b.Fatal(err)
	}
	// The reference: managedfields' own TypeConverter of the same models, without
	// runtime/fieldmanager's shortcuts, for the ratio update / update-reference.
	models, err := fieldmanager.Models(scheme, install.GetOpenAPIDefinitions)
	if err != nil {
		b.Fatal(err)
	}
	libTC, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		b.Fatal(err)
	}
	reference, err := managedfields.NewDefaultFieldManager(libTC, runtime.UnsafeObjectConvertor(scheme), scheme, scheme,
		v1.SchemeGroupVersion.WithKind("Database"), db.SchemeGroupVersion, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	live := fm.UpdateNoErrors(&db.Database{}, benchDatabase(0), "bench").(*db.Database)
	b.Run("baseline-convert", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			out, err := scheme.ConvertToVersion(benchDatabase(1), v1.SchemeGroupVersion)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := scheme.ConvertToVersion(out, db.SchemeGroupVersion); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		fm   *managedfields.FieldManager
	}{{"update", fm}, {"update-reference", reference}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			seq := 0
			for b.Loop() {
				seq++
				obj := benchDatabase(seq)
				obj.ManagedFields = live.ManagedFields
				if out := c.fm.UpdateNoErrors(live, obj, "bench"); len(out.(*db.Database).ManagedFields) != 1 {
					b.Fatalf("managedFields %v", out.(*db.Database).ManagedFields)
				}
			}
		})
	}
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		applied := applyConfig(b, live, 0)
		current, err := fm.Apply(live, applied, "bench", true)
		if err != nil {
			b.Fatal(err)
		}
		seq := 0
		defer reportCPU(b)()
		for b.Loop() {
			seq++
			if _, err := fm.Apply(current, applyConfig(b, live, seq), "bench", true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU starts measuring the process's CPU time (user and system, every thread: GC
// included) and returns the function that reports it per operation as "cpu-ns/op", a
// measure a loaded machine disturbs less than wall time.
func reportCPU(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	}
}

// cpuTime is the process's CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// applyConfig is the apply configuration of the benchmark's object with parameter seq.
func applyConfig(b *testing.B, live *db.Database, seq int) *unstructured.Unstructured {
	params := map[string]any{"seq": fmt.Sprint(seq)}
	for k, v := range live.Spec.Parameters {
		if k != "seq" {
			params[k] = v
		}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "db.example.com/v1", "kind": "Database",
		"metadata": map[string]any{"name": "bench", "namespace": "ns"},
		"spec":     map[string]any{"engine": "postgres", "parameters": params}}}
	if _, err := json.Marshal(u.Object); err != nil {
		b.Fatal(err)
	}
	return u
}

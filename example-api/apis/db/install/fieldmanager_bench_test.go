package install_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/filters"
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
// to v1 and back, the least a write does. update-reflect and apply-reflect read Go objects
// with structured-merge-diff's reflection (reflectConverter), as runtime/fieldmanager did
// before it read them as unstructured data.
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
	// update-reflect: runtime/fieldmanager with structured-merge-diff's reflection of Go
	// objects (reflectConverter) instead of their unstructured form.
	reflecting, err := fieldmanager.New(fieldmanager.Config{TypeConverter: newReflectConverter(b, tc, models),
		Convertor: runtime.UnsafeObjectConvertor(scheme), Defaulter: scheme, Creater: scheme,
		Kind: v1.SchemeGroupVersion.WithKind("Database"), Hub: db.SchemeGroupVersion})
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
	}{{"update", fm}, {"update-reflect", reflecting}, {"update-reference", reference}} {
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
	// A server runs each request on a new goroutine, whose small stack structured-merge-diff's
	// recursive walks grow: update-goroutine runs each update on a new goroutine, and
	// update-goroutine-grown grows its stack first (filters.GrowStack), as the server's
	// filters do for writes.
	for _, grow := range []bool{false, true} {
		name := "update-goroutine"
		if grow {
			name += "-grown"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			seq := 0
			done := make(chan runtime.Object)
			for b.Loop() {
				seq++
				obj := benchDatabase(seq)
				obj.ManagedFields = live.ManagedFields
				go func() {
					if grow {
						filters.GrowStack()
					}
					done <- fm.UpdateNoErrors(live, obj, "bench")
				}()
				if out := <-done; len(out.(*db.Database).ManagedFields) != 1 {
					b.Fatalf("managedFields %v", out.(*db.Database).ManagedFields)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		fm   *managedfields.FieldManager
	}{{"apply", fm}, {"apply-reflect", reflecting}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			applied := applyConfig(b, live, 0)
			current, err := c.fm.Apply(live, applied, "bench", true)
			if err != nil {
				b.Fatal(err)
			}
			seq := 0
			defer reportCPU(b)()
			for b.Loop() {
				seq++
				if _, err := c.fm.Apply(current, applyConfig(b, live, seq), "bench", true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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

// reflectConverter converts Go objects with structured-merge-diff's reflection
// (value.NewValueReflect), unvalidated, and anything else with TypeConverter: the
// measure of what reading them as unstructured data saves.
type reflectConverter struct {
	managedfields.TypeConverter
	database typed.ParseableType
}

// newReflectConverter returns the reflectConverter of v1 Databases over models, delegating to
// tc.
func newReflectConverter(b *testing.B, tc managedfields.TypeConverter, models map[string]*spec.Schema) *reflectConverter {
	ts, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		b.Fatal(err)
	}
	parser := &typed.Parser{Schema: smdschema.Schema{Types: ts.Types}}
	for name := range models {
		if strings.HasSuffix(name, ".db.v1.Database") {
			return &reflectConverter{TypeConverter: tc, database: parser.Type(name)}
		}
	}
	b.Fatal("no model of v1 Database")
	return nil
}

// ObjectToTyped reflects on a v1 Database, and validates an unstructured one with the same
// schema.
func (c *reflectConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind() == v1.SchemeGroupVersion.WithKind("Database") {
		return c.database.FromUnstructured(u.UnstructuredContent(), opts...)
	}
	if _, ok := obj.(*v1.Database); !ok {
		return c.TypeConverter.ObjectToTyped(obj, opts...)
	}
	v, err := value.NewValueReflect(obj)
	if err != nil {
		return nil, err
	}
	return typed.AsTypedUnvalidated(v, c.database.Schema, c.database.TypeRef), nil
}

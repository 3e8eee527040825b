package v1_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	kjson "sigs.k8s.io/json"

	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/bench"
)

// benchPair decodes the bench Database (31 spec.parameters) twice: equal objects in distinct
// memory, the worst case of an update that changes nothing the comparison can stop at.
func benchPair(b testing.TB) (*v1.Database, *v1.Database) {
	tmpl, err := bench.NewObjectTemplate(1024)
	if err != nil {
		b.Fatal(err)
	}
	data := tmpl.Render(nil, "bench-object-0000001", "12345", 7)
	var x, y v1.Database
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &x); err != nil {
		b.Fatal(err)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &y); err != nil {
		b.Fatal(err)
	}
	if len(x.Spec.Parameters) < 30 {
		b.Fatalf("bench Database has %d spec.parameters, want at least 30", len(x.Spec.Parameters))
	}
	return &x, &y
}

// BenchmarkSemanticEqual measures the generated SemanticEqual_DatabaseSpec (the strategy's
// generation bump) and SemanticEqual_Database against equality.Semantic.DeepEqual on the
// bench Database: `go test -run '^$' -bench SemanticEqual ./example-api/apis/db/v1`.
func BenchmarkSemanticEqual(b *testing.B) {
	x, y := benchPair(b)
	b.Run("spec/generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !v1.SemanticEqual_DatabaseSpec(&x.Spec, &y.Spec) {
				b.Fatal("unequal")
			}
		}
	})
	b.Run("spec/reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !equality.Semantic.DeepEqual(x.Spec, y.Spec) {
				b.Fatal("unequal")
			}
		}
	})
	b.Run("object/generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !v1.SemanticEqual_Database(x, y) {
				b.Fatal("unequal")
			}
		}
	})
	b.Run("object/reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !equality.Semantic.DeepEqual(x, y) {
				b.Fatal("unequal")
			}
		}
	})
}

// TestSemanticEqualBenchObject checks the benchmark's premise: on the bench Database and on
// it with one parameter changed, the generated functions answer as the reflection does.
func TestSemanticEqualBenchObject(t *testing.T) {
	x, y := benchPair(t)
	for _, mutate := range []func(*v1.Database){
		func(*v1.Database) {},
		func(d *v1.Database) {
			for k := range d.Spec.Parameters {
				d.Spec.Parameters[k] += "x"
				break
			}
		},
		func(d *v1.Database) { d.Spec.Parameters["new"] = "" },
		func(d *v1.Database) { d.Labels = nil },
	} {
		c := y.DeepCopy()
		mutate(c)
		if got, want := v1.SemanticEqual_DatabaseSpec(&x.Spec, &c.Spec), equality.Semantic.DeepEqual(x.Spec, c.Spec); got != want {
			t.Errorf("SemanticEqual_DatabaseSpec = %v, equality.Semantic.DeepEqual %v", got, want)
		}
		if got, want := v1.SemanticEqual_Database(x, c), equality.Semantic.DeepEqual(x, c); got != want {
			t.Errorf("SemanticEqual_Database = %v, equality.Semantic.DeepEqual %v", got, want)
		}
	}
}

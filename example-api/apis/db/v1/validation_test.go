package v1

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func sample() *Database {
	replicas := int32(3)
	return &Database{
		ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: "default"},
		Spec: DatabaseSpec{
			Engine: EnginePostgres, Version: "16.2", Replicas: &replicas, Storage: resource.MustParse("10Gi"),
			Parameters: map[string]string{"max_connections": "200"},
			Backup:     &BackupPolicy{Schedule: "0 3 * * *", RetentionDays: 7},
		},
	}
}

// TestGeneratedValidation checks zz_generated.validation.go on the example's Database: the
// sample passes, and its engine cannot change on update.
func TestGeneratedValidation(t *testing.T) {
	s := newScheme(t)
	ctx := context.Background()
	if errs := s.Validate(ctx, nil, sample()); len(errs) != 0 {
		t.Fatalf("the sample is invalid: %v", errs)
	}
	changed := sample()
	changed.Spec.Engine = EngineMySQL
	errs := s.ValidateUpdate(ctx, nil, changed, sample())
	if len(errs) != 1 || errs[0].Field != "spec.engine" || errs[0].Detail != "engine is immutable" {
		t.Errorf("changing the engine: %v, want one spec.engine: engine is immutable", errs)
	}
	scaled := sample()
	*scaled.Spec.Replicas = 10
	errs = s.ValidateUpdate(ctx, nil, scaled, sample())
	if len(errs) != 1 || errs[0].Field != "spec.replicas" || !strings.Contains(errs[0].Detail, "less than or equal to 9") {
		t.Errorf("10 replicas: %v, want one spec.replicas error", errs)
	}
}

// BenchmarkValidateUpdate measures the generated validation of an update that changes one
// field of a Database (the per-request cost of its markers and CEL rule).
func BenchmarkValidateUpdate(b *testing.B) {
	s := newScheme(b)
	ctx := context.Background()
	old, obj := sample(), sample()
	*obj.Spec.Replicas = 5
	for b.Loop() {
		if errs := s.ValidateUpdate(ctx, nil, obj, old); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateCreate measures the generated validation of a new Database.
func BenchmarkValidateCreate(b *testing.B) {
	s := newScheme(b)
	ctx := context.Background()
	obj := sample()
	for b.Loop() {
		if errs := s.Validate(ctx, nil, obj); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

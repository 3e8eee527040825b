package validation

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	ctx    = context.Background()
	create = operation.Operation{Type: operation.Create}
	path   = field.NewPath("spec", "value")
)

func ptr[T any](v T) *T { return &v }

// detail returns the one error's "type: detail", or "" when errs is empty; more than one
// error fails the test.
func detail(t *testing.T, errs field.ErrorList) string {
	t.Helper()
	switch len(errs) {
	case 0:
		return ""
	case 1:
		if errs[0].Field != "spec.value" {
			t.Errorf("error at %q, want spec.value", errs[0].Field)
		}
		return string(errs[0].Type) + ": " + errs[0].Detail
	}
	t.Fatalf("got %d errors, want at most one: %v", len(errs), errs)
	return ""
}

// The messages are kube-apiserver's for a CRD schema (kube-openapi's, "<path> in body ...").
func TestMinimumMaximum(t *testing.T) {
	const at = "FieldValueInvalid: spec.value in body should be "
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want string
	}{
		{"float at inclusive minimum", Minimum(ctx, create, path, ptr(0.5), nil, 0.5, false), ""},
		{"float below inclusive minimum", Minimum(ctx, create, path, ptr(0.4), nil, 0.5, false), at + "greater than or equal to 0.5"},
		{"float at exclusive minimum", Minimum(ctx, create, path, ptr(0.5), nil, 0.5, true), at + "greater than 0.5"},
		{"float above exclusive minimum", Minimum(ctx, create, path, ptr(0.51), nil, 0.5, true), ""},
		// As kube-openapi's MinimumNativeType: an integer is compared with the bound truncated.
		{"int with fractional minimum", Minimum(ctx, create, path, ptr(int32(1)), nil, 1.5, false), ""},
		{"int below fractional minimum", Minimum(ctx, create, path, ptr(int32(0)), nil, 1.5, false), at + "greater than or equal to 1"},
		{"int below minimum", Minimum(ctx, create, path, ptr(int32(-1)), nil, 0, false), at + "greater than or equal to 0"},
		{"nil passes minimum", Minimum[float64](ctx, create, path, nil, nil, 1, false), ""},
		{"at inclusive maximum", Maximum(ctx, create, path, ptr(100.0), nil, 100, false), ""},
		{"above inclusive maximum", Maximum(ctx, create, path, ptr(100.5), nil, 100, false), at + "less than or equal to 100"},
		{"at exclusive maximum", Maximum(ctx, create, path, ptr(int64(100)), nil, 100, true), at + "less than 100"},
		{"below exclusive maximum", Maximum(ctx, create, path, ptr(int64(99)), nil, 100, true), ""},
		{"named type", Maximum(ctx, create, path, ptr(percent(101)), nil, 100, false), at + "less than or equal to 100"},
		{"nil passes maximum", Maximum[int](ctx, create, path, nil, nil, 1, true), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detail(t, tc.got); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

type percent int

func TestMultipleOf(t *testing.T) {
	const at = "FieldValueInvalid: spec.value in body should be a multiple of "
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want string
	}{
		{"integer multiple", MultipleOf(ctx, create, path, ptr(int32(6)), nil, 2), ""},
		{"integer not a multiple", MultipleOf(ctx, create, path, ptr(int32(7)), nil, 2), at + "2"},
		{"zero", MultipleOf(ctx, create, path, ptr(0), nil, 3), ""},
		{"negative multiple", MultipleOf(ctx, create, path, ptr(-9), nil, 3), ""},
		{"float multiple despite rounding", MultipleOf(ctx, create, path, ptr(0.3), nil, 0.1), ""},
		{"float not a multiple", MultipleOf(ctx, create, path, ptr(0.35), nil, 0.1), at + "0.1"},
		{"nil passes", MultipleOf[int](ctx, create, path, nil, nil, 2), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detail(t, tc.got); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEnum: allowed values are listed in the marker's order, strings unquoted before
// field.NotSupported quotes them, numbers as JSON.
func TestEnum(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want string
	}{
		{"number allowed", Enum(ctx, create, path, ptr(5), nil, 1, 5, 10), ""},
		{"number not allowed", Enum(ctx, create, path, ptr(2), nil, 10, 1, 5), `FieldValueNotSupported: supported values: "10", "1", "5"`},
		{"float allowed", Enum(ctx, create, path, ptr(0.5), nil, 0.25, 0.5), ""},
		{"string in marker order", Enum(ctx, create, path, ptr(engine("oracle")), nil, "postgres", "mysql"), `FieldValueNotSupported: supported values: "postgres", "mysql"`},
		{"nil passes", Enum[int](ctx, create, path, nil, nil, 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detail(t, tc.got); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

type engine string

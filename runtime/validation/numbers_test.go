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

func TestMinimumMaximum(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want string
	}{
		{"float at inclusive minimum", Minimum(ctx, create, path, ptr(0.5), nil, 0.5, false), ""},
		{"float below inclusive minimum", Minimum(ctx, create, path, ptr(0.4), nil, 0.5, false), "FieldValueInvalid: must be greater than or equal to 0.5"},
		{"float at exclusive minimum", Minimum(ctx, create, path, ptr(0.5), nil, 0.5, true), "FieldValueInvalid: must be greater than 0.5"},
		{"float above exclusive minimum", Minimum(ctx, create, path, ptr(0.51), nil, 0.5, true), ""},
		{"int with fractional minimum", Minimum(ctx, create, path, ptr(int32(1)), nil, 1.5, false), "FieldValueInvalid: must be greater than or equal to 1.5"},
		{"nil passes minimum", Minimum[float64](ctx, create, path, nil, nil, 1, false), ""},
		{"at inclusive maximum", Maximum(ctx, create, path, ptr(100.0), nil, 100, false), ""},
		{"above inclusive maximum", Maximum(ctx, create, path, ptr(100.5), nil, 100, false), "FieldValueInvalid: must be less than or equal to 100"},
		{"at exclusive maximum", Maximum(ctx, create, path, ptr(int64(100)), nil, 100, true), "FieldValueInvalid: must be less than 100"},
		{"below exclusive maximum", Maximum(ctx, create, path, ptr(int64(99)), nil, 100, true), ""},
		{"named type", Maximum(ctx, create, path, ptr(percent(101)), nil, 100, false), "FieldValueInvalid: must be less than or equal to 100"},
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
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want string
	}{
		{"integer multiple", MultipleOf(ctx, create, path, ptr(int32(6)), nil, 2), ""},
		{"integer not a multiple", MultipleOf(ctx, create, path, ptr(int32(7)), nil, 2), "FieldValueInvalid: must be a multiple of 2"},
		{"zero", MultipleOf(ctx, create, path, ptr(0), nil, 3), ""},
		{"negative multiple", MultipleOf(ctx, create, path, ptr(-9), nil, 3), ""},
		{"float multiple despite rounding", MultipleOf(ctx, create, path, ptr(0.3), nil, 0.1), ""},
		{"float not a multiple", MultipleOf(ctx, create, path, ptr(0.35), nil, 0.1), "FieldValueInvalid: must be a multiple of 0.1"},
		{"nil passes", MultipleOf[int](ctx, create, path, nil, nil, 2), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detail(t, tc.got); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEnumValue(t *testing.T) {
	if got := detail(t, EnumValue(ctx, create, path, ptr(5), nil, 1, 5, 10)); got != "" {
		t.Errorf("5 in 1;5;10: %q", got)
	}
	if got := detail(t, EnumValue(ctx, create, path, ptr(2), nil, 1, 5, 10)); got != `FieldValueNotSupported: supported values: "1", "5", "10"` {
		t.Errorf("2 in 1;5;10: %q", got)
	}
	if got := detail(t, EnumValue(ctx, create, path, ptr(0.5), nil, 0.25, 0.5)); got != "" {
		t.Errorf("0.5 in 0.25;0.5: %q", got)
	}
	if got := detail(t, EnumValue[int](ctx, create, path, nil, nil, 1)); got != "" {
		t.Errorf("nil: %q", got)
	}
}

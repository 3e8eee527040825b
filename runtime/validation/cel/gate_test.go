package cel

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestGate(t *testing.T) {
	rule := field.Invalid(field.NewPath("spec", "engine"), "x", "engine is immutable").WithOrigin(Origin)
	invalid := field.Invalid(field.NewPath("spec", "replicas"), 10, "too big")
	unsupported := field.NotSupported(field.NewPath("spec", "engine"), "x", []string{"a"})
	notChecked := field.Invalid(nil, nil, NotCheckedMessage)
	requiredRule := field.Required(field.NewPath("spec", "a"), "by a rule").WithOrigin(Origin)
	missingName := field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")}
	for _, tc := range []struct {
		name     string
		prior    field.ErrorList // the metadata's, noted in the context
		in, want field.ErrorList
	}{
		{"no errors", nil, nil, nil},
		{"no blocking error: rules stay", nil, field.ErrorList{invalid, rule}, field.ErrorList{invalid, rule}},
		{"a blocking error drops the rules", nil, field.ErrorList{unsupported, rule}, field.ErrorList{unsupported, notChecked}},
		{"a rule's own Required does not block", nil, field.ErrorList{requiredRule}, field.ErrorList{requiredRule}},
		{"the metadata's blocking error drops the rules", missingName, field.ErrorList{rule}, field.ErrorList{notChecked}},
		{"the metadata's blocking error: notice without a failed rule", missingName, nil, field.ErrorList{notChecked}},
		{"the metadata's other errors do not block", field.ErrorList{invalid}, field.ErrorList{rule}, field.ErrorList{rule}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := WithPriorErrors(context.Background(), tc.prior)
			if diff := cmp.Diff(tc.want.ToAggregate(), Gate(ctx, tc.in).ToAggregate()); diff != "" {
				t.Errorf("Gate (-want +got):\n%s", diff)
			}
		})
	}
}

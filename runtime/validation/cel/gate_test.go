package cel

import (
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
	for _, tc := range []struct {
		name     string
		in, want field.ErrorList
	}{
		{"no errors", nil, nil},
		{"no blocking error: rules stay", field.ErrorList{invalid, rule}, field.ErrorList{invalid, rule}},
		{"a blocking error drops the rules", field.ErrorList{unsupported, rule}, field.ErrorList{unsupported, notChecked}},
		{"a rule's own Required does not block", field.ErrorList{requiredRule}, field.ErrorList{requiredRule}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want.ToAggregate(), Gate(tc.in).ToAggregate()); diff != "" {
				t.Errorf("Gate (-want +got):\n%s", diff)
			}
		})
	}
}

package markers_test

import (
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

func TestRegisterRejects(t *testing.T) {
	ok := markers.Definition{Name: "x:flag", Level: markers.FieldLevel, Owner: "crd", Help: "Sets x."}
	for name, tt := range map[string]struct {
		def  markers.Definition
		want string
	}{
		"no help":      {def: markers.Definition{Name: "x:other", Level: markers.FieldLevel, Owner: "crd"}, want: "marker +x:other (crd): no help"},
		"blank help":   {def: markers.Definition{Name: "x:other", Level: markers.FieldLevel, Owner: "crd", Help: " "}, want: "no help"},
		"no owner":     {def: markers.Definition{Name: "x:other", Level: markers.FieldLevel, Help: "Sets x."}, want: "marker +x:other: no owner generator"},
		"no level":     {def: markers.Definition{Name: "x:other", Owner: "crd", Help: "Sets x."}, want: "no level"},
		"plus":         {def: markers.Definition{Name: "+x:other", Level: markers.FieldLevel, Owner: "crd", Help: "Sets x."}, want: "without \"+\""},
		"second owner": {def: markers.Definition{Name: "x:flag", Level: markers.FieldLevel, Owner: "openapi", Help: "Sets x."}, want: "marker +x:flag registered by crd and by openapi: a marker has one owner"},
	} {
		t.Run(name, func(t *testing.T) {
			reg := markers.NewRegistry()
			if err := reg.Register(ok); err != nil {
				t.Fatal(err)
			}
			err := reg.Register(tt.def)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Register(%+v) = %v, want an error containing %q", tt.def, err, tt.want)
			}
		})
	}
}

// TestParseReadsRegistrations checks that the grammar is the registry's: a marker parses only
// where it is registered, with the registered ApplyFunc, Unhonored warning and Family.
func TestParseReadsRegistrations(t *testing.T) {
	reg := markers.NewRegistry()
	reg.MustRegister(
		markers.Definition{Name: "test:min", Level: markers.FieldLevel, Owner: "validation", Help: "Sets the minimum.",
			Apply: markers.Float("minimum", func(v *model.Validation) **float64 { return &v.Minimum })},
		markers.Definition{Name: "test:old", Level: markers.FieldLevel, Owner: "openapi", Help: "Does nothing.", Unhonored: "it is old"},
		markers.Definition{Name: "test:fam", Level: markers.FieldLevel, Owner: "markers", Help: "A family.", Family: true, Unhonored: "a family"},
	)
	m, diags := reg.Parse(lines("+test:min=3", "+test:old", "+test:fam:a=b", "+kubebuilder:validation:Minimum=1"))
	if m.Validation.Minimum == nil || *m.Validation.Minimum != 3 {
		t.Errorf("Minimum = %v, want 3 (from the registered +test:min)", m.Validation.Minimum)
	}
	got := diags.Error()
	for _, want := range []string{
		"types.go:11:1: warning: +test:old does nothing in apigen: it is old",
		"types.go:12:1: warning: +test:fam:a=b does nothing in apigen: a family",
		"types.go:13:1: warning: unknown marker +kubebuilder:validation:Minimum: apigen and controller-gen ignore it",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics:\n%s\nwant %q", got, want)
		}
	}
}

func TestLevelString(t *testing.T) {
	if got := (markers.PackageLevel | markers.FieldLevel | markers.FuncLevel).String(); got != "package, field, func" {
		t.Errorf("Level.String() = %q", got)
	}
}
